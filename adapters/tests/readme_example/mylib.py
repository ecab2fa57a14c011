"""`mylib` of adapters/README.md's example adapter: kiln-python (adapters/python/kiln.py)
under the names the example calls, so that the example runs as printed."""

import kiln

__version__ = kiln.__version__
FormatError = kiln.KilnError  # .error_class is "FRAME" or "TYPE"
decode = kiln.decode
encode = kiln.encode


def Tensor(name, dtype, shape, layout, block_size, payload):
    """The example's argument order; "" for no layout, as the example passes it."""
    return kiln.Tensor(name, dtype, tuple(shape), payload, layout or None, block_size)
