# SPDX-License-Identifier: Apache-2.0
# Writes the bytes of IN as a C array named SYMBOL (plus SYMBOL_len) to OUT.
file(READ ${IN} hex HEX)
string(LENGTH "${hex}" n)
math(EXPR len "${n} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," body "${hex}")
file(WRITE ${OUT} "/* Generated from ${IN}; do not edit. */\n#include <stddef.h>\n"
     "const unsigned char ${SYMBOL}[] = {${body}};\n"
     "const size_t ${SYMBOL}_len = ${len};\n")
