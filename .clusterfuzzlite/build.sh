#!/bin/bash -eu
# One build script for OSS-Fuzz and ClusterFuzzLite: run from the source root.
exec bash fuzz/oss-fuzz/build.sh
