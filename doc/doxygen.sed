# doxygen.sed: hspgemm.h's plain comments as Doxygen reads documentation:
# a comment on lines of its own documents what follows it, one after a
# member or an enum value documents that member or value.
s|^\( *\)/\* |\1/** |
s|\([;,]\) *\(/\*\)\( \)|\1 /**<\3|
s|\([A-Za-z0-9_)]\) *\(/\*\)\( [a-z0-9]\)|\1 /**<\3|
