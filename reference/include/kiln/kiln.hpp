// Everything the reference library offers, in one include.
#pragma once

#include "kiln/builder.hpp"
#include "kiln/decode.hpp"
#include "kiln/description.hpp"
#include "kiln/dtype.hpp"
#include "kiln/encode.hpp"
#include "kiln/endian.hpp"
#include "kiln/error.hpp"
#include "kiln/hex.hpp"
#include "kiln/layout.hpp"
#include "kiln/rules.hpp"
#include "kiln/utf8.hpp"
