#!/bin/bash
# make patches: write our series against the base as mail-ready patches,
# with a cover letter, to out/patches/, and run checkpatch --strict on each.
#
# One patch per commit of this repository that touches the kernel tree,
# replayed in order on top of the base.  The first patch removes upstream's
# implementation and adds the complete core, so that every patch builds.
. "$(dirname "$0")/lib.sh"

dst=$OUT/patches
work=$OUT/patches-tree
rm -rf "$dst" "$work"
mkdir -p "$dst"

git -C "$SERIES_SRC" worktree prune
git -C "$SERIES_SRC" worktree add -q --detach "$work" base ||
	die "cannot create a worktree of the base"
trap 'git -C "$SERIES_SRC" worktree remove --force "$work" >/dev/null 2>&1' EXIT

paths="$OWNED_DIRS $OWNED_FILES"

# The series is sent and signed off by whoever runs this.
sender_name=$(git -C "$TOP" config user.name) ||
	die "git config user.name is not set: the series needs a sender"
sender_email=$(git -C "$TOP" config user.email) ||
	die "git config user.email is not set: the series needs a sender"
export GIT_COMMITTER_NAME=$sender_name GIT_COMMITTER_EMAIL=$sender_email

# Make the work tree's owned paths exactly those of commit $1 (plus KEEP).
checkout_owned() {
	local c=$1 d f k
	for d in $OWNED_DIRS; do
		find "$work/$d" -type f 2>/dev/null | while read -r f; do
			k=${f#"$work"/}
			case " $KEEP " in *" $k "*) ;; *) rm -f "$f" ;; esac
		done
		git -C "$TOP" archive "$c" "$d" 2>/dev/null | tar -x -C "$work" 2>/dev/null
	done
	for f in $OWNED_FILES; do
		if git -C "$TOP" cat-file -e "$c:$f" 2>/dev/null; then
			mkdir -p "$(dirname "$work/$f")"
			git -C "$TOP" show "$c:$f" >"$work/$f"
		fi
	done
}

# The first patch is the first commit with a complete core: everything
# before it is folded in, since the kernel cannot build without a core.
first=$(git -C "$TOP" rev-list --reverse HEAD -- kernel/events/Makefile | head -n 1)
[ -n "$first" ] || die "no commit adds kernel/events/Makefile"

n=0
started=0
# shellcheck disable=SC2086
for c in $(git -C "$TOP" rev-list --reverse HEAD -- $paths); do
	[ "$c" = "$first" ] && started=1
	[ $started = 1 ] || continue
	checkout_owned "$c"
	for p in $paths; do
		git -C "$work" add -A -f -- "$p" >/dev/null 2>&1
	done
	git -C "$work" diff --cached --quiet && continue
	git -C "$TOP" log -1 --format=%B "$c" >"$OUT/patches-msg"
	GIT_AUTHOR_DATE=$(git -C "$TOP" log -1 --format=%aD "$c") \
	git -C "$work" -c user.name="$(git -C "$TOP" log -1 --format=%an "$c")" \
		-c user.email="$(git -C "$TOP" log -1 --format=%ae "$c")" \
		commit -q -F "$OUT/patches-msg" --signoff
	n=$((n + 1))
done
[ $n -gt 0 ] || die "no commits touch the kernel tree"

GIT_AUTHOR_NAME=$sender_name GIT_AUTHOR_EMAIL=$sender_email \
	git -C "$work" format-patch -q --cover-letter -o "$dst" base..HEAD
cover=$(ls "$dst"/0000-*.patch)
python3 - "$cover" "$TOP/tools/testing/perf-vm/cover-letter.txt" <<'PY'
import sys
path, text = sys.argv[1], open(sys.argv[2]).read()
s = open(path).read()
s = s.replace("*** SUBJECT HERE ***", text.splitlines()[0])
s = s.replace("*** BLURB HERE ***", "\n".join(text.splitlines()[2:]))
open(path, "w").write(s)
PY

errors=0 warnings=0 checks=0
for p in "$dst"/0*.patch; do
	[ "$p" = "$cover" ] && continue
	# Debian's python3, which has the SPDX check's modules (deps.sh).
	out=$(PATH=/usr/bin:$PATH "$SERIES_SRC/scripts/checkpatch.pl" --strict -q "$p" 2>&1)
	e=$(printf '%s\n' "$out" | grep -c '^ERROR')
	w=$(printf '%s\n' "$out" | grep -c '^WARNING')
	k=$(printf '%s\n' "$out" | grep -c '^CHECK')
	printf '%-70s %3d errors %3d warnings %3d checks\n' "$(basename "$p")" "$e" "$w" "$k"
	errors=$((errors + e)) warnings=$((warnings + w)) checks=$((checks + k))
done
echo "$n patches in $dst: $errors errors, $warnings warnings, $checks checks"
