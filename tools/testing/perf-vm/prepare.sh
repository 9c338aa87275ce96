#!/bin/bash
# Prepare the kernel sources under out/:
#   out/base-src  the base, extracted once, never modified (stock kernel)
#   out/linux     a git tree: commit "base", then one commit holding our
#                 series: upstream's perf implementation removed, ours in.
# Copies only files whose contents changed, so that timestamps of
# untouched files survive and kernel builds stay incremental.
. "$(dirname "$0")/lib.sh"

[ -r "$BASE_TARBALL" ] || die "$BASE_TARBALL missing (apt-get install linux-source-6.12)"

extract() {	# $1: destination
	local dst=$1 tmp=$1.tmp
	rm -rf "$tmp"
	mkdir -p "$tmp"
	tar -C "$tmp" -xf "$BASE_TARBALL" || die "cannot extract $BASE_TARBALL"
	mv "$tmp"/linux-source-6.12 "$dst"
	rm -rf "$tmp"
}

base_version() {	# $1: tree
	make -s -C "$1" kernelversion 2>/dev/null
}

stamp=$(stat -c %Y "$BASE_TARBALL")
if [ ! -f "$BASE_SRC/.perfvm-base" ] || [ "$(cat "$BASE_SRC/.perfvm-base")" != "$stamp" ]; then
	log "extracting $BASE_TARBALL into $BASE_SRC"
	rm -rf "$BASE_SRC"
	extract "$BASE_SRC"
	echo "$stamp" >"$BASE_SRC/.perfvm-base"
fi
ver=$(base_version "$BASE_SRC")
case "$ver" in
6.12|6.12.*) ;;
*) die "base is Linux $ver; this series applies to 6.12.y only" ;;
esac

if [ ! -f "$SERIES_SRC/.perfvm-base" ] || [ "$(cat "$SERIES_SRC/.perfvm-base")" != "$stamp" ]; then
	log "creating the series tree $SERIES_SRC"
	rm -rf "$SERIES_SRC"
	extract "$SERIES_SRC"
	(
		cd "$SERIES_SRC" &&
		git init -q -b series &&
		git config user.name "perf-vm" &&
		git config user.email "perf-vm@localhost" &&
		git config core.autocrlf false &&
		printf '/.perfvm-base\n' >>.git/info/exclude &&
		git add -A -f . >/dev/null &&
		git commit -q -m "Linux $ver (Debian linux-source-6.12)" &&
		git tag -f base >/dev/null
	) || die "cannot create git tree in $SERIES_SRC"
	echo "$stamp" >"$SERIES_SRC/.perfvm-base"
fi

# Bring the owned paths of the series tree to exactly our files.
changed=0
for d in $OWNED_DIRS; do
	mkdir -p "$SERIES_SRC/$d"
	filt=()
	for k in $KEEP; do
		case "$k" in "$d"/*) filt+=(--filter "P /${k#"$d"/}") ;; esac
	done
	src=$TOP/$d/
	[ -d "$src" ] || src=$OUT/.empty/
	mkdir -p "$OUT/.empty"
	n=$(rsync -rci --delete "${filt[@]}" "$src" "$SERIES_SRC/$d/" | wc -l)
	[ "$n" -gt 0 ] && changed=1
done
for f in $OWNED_FILES; do
	if [ -f "$TOP/$f" ]; then
		if ! cmp -s "$TOP/$f" "$SERIES_SRC/$f"; then
			mkdir -p "$(dirname "$SERIES_SRC/$f")"
			cp "$TOP/$f" "$SERIES_SRC/$f"
			changed=1
		fi
	elif [ -e "$SERIES_SRC/$f" ]; then
		rm -f "$SERIES_SRC/$f"
		changed=1
	fi
done

# Files the series changes but does not own (MAINTAINERS, the index of
# the user-space API documentation) are the base's with the hunks of
# tree/*.patch applied.  A file no patch touches any more goes back to
# the base's.
tmp=$OUT/tree-tmp
rm -rf "$tmp"
mkdir -p "$tmp"
touched=$(sed -n 's|^+++ b/||p' "$PERFVM"/tree/*.patch 2>/dev/null | sort -u)
for f in $touched; do
	mkdir -p "$tmp/$(dirname "$f")"
	cp "$BASE_SRC/$f" "$tmp/$f" || die "tree/*.patch: $f is not in the base"
done
for p in "$PERFVM"/tree/*.patch; do
	[ -e "$p" ] || continue
	# Not inside our own repository, whose git would ignore the paths.
	(cd "$tmp" && GIT_CEILING_DIRECTORIES=$OUT git apply "$p") ||
		die "$p does not apply to the base"
done
[ -f "$SERIES_SRC/.perfvm-tree" ] || : >"$SERIES_SRC/.perfvm-tree"
grep -qx '/.perfvm-tree' "$SERIES_SRC/.git/info/exclude" ||
	echo '/.perfvm-tree' >>"$SERIES_SRC/.git/info/exclude"
for f in $(cat "$SERIES_SRC/.perfvm-tree"); do
	case " $(echo $touched) " in *" $f "*) continue ;; esac
	if ! cmp -s "$BASE_SRC/$f" "$SERIES_SRC/$f"; then
		cp "$BASE_SRC/$f" "$SERIES_SRC/$f"
		changed=1
	fi
done
for f in $touched; do
	if ! cmp -s "$tmp/$f" "$SERIES_SRC/$f"; then
		cp "$tmp/$f" "$SERIES_SRC/$f"
		changed=1
	fi
done
echo "$touched" >"$SERIES_SRC/.perfvm-tree"
rm -rf "$tmp"

if [ $changed = 1 ]; then
	(
		cd "$SERIES_SRC" &&
		# Debian's top-level .gitignore ignores everything: force.
		for p in $OWNED_DIRS $OWNED_FILES; do
			git add -A -f -- "$p" >/dev/null 2>&1
		done
		git add -A . >/dev/null &&
		if ! git diff --cached --quiet; then
			if [ "$(git rev-parse HEAD)" = "$(git rev-parse base)" ]; then
				git commit -q -m "perf: replace the perf_event implementation"
			else
				git commit -q --amend --no-edit
			fi
		fi
	) || die "cannot commit the series in $SERIES_SRC"
fi
echo "$ver"
