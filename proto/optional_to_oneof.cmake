# SPDX-License-Identifier: Apache-2.0
# Rewrites `optional T name = N;` into `oneof _name { T name = N; }`, which is
# what proto3 optional means on the wire and what protobuf-c 1.4 accepts.
file(READ ${IN} text)
string(REGEX REPLACE "\n( *)optional ([A-Za-z0-9_.]+) ([a-z_0-9]+) = ([0-9]+);"
       "\n\\1oneof _\\3 { \\2 \\3 = \\4; }" text "${text}")
file(WRITE ${OUT} "${text}")
