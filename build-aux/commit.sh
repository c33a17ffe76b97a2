#!/bin/sh
# commit.sh SRCDIR: the C definition of HSP_COMMIT, the commit the sources
# are from: git's short name for it (with -dirty when files differ from it),
# else what build-aux/commit.txt holds (make dist writes it into the
# tarball), else "".
src="${1:-.}"
commit=$(git -C "$src" describe --always --dirty --abbrev=12 2>/dev/null) ||
    commit=$(cat "$src/build-aux/commit.txt" 2>/dev/null) || commit=
printf '#define HSP_COMMIT "%s"\n' "$commit"
