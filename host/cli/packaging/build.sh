#!/usr/bin/env bash
# Builds subterminator's two packages, and checks what each holds:
#
#   - a Debian package (cargo-deb, metadata in host/cli/Cargo.toml): the
#     binary, a man page per command and the bash, zsh and fish completions,
#     depending on nodejs, npm and Chromium;
#   - an MCP bundle (.mcpb, the @anthropic-ai/mcpb CLI from the npm registry)
#     for Claude Desktop on Linux x86_64: the same binary and
#     host/cli/packaging/mcpb/manifest.json.
#
# Usage:
#   host/cli/packaging/build.sh          release build first (cargo build --locked --release)
#   host/cli/packaging/build.sh --ci     no build: the dev binary CI's test build already made
#
# The man pages and completions come from the packaged binary itself
# (`subterminator manpage`, `subterminator completions`), so they describe
# its flags. Everything lands in $CARGO_TARGET_DIR (default target/):
# packages/ holds the .deb and the .mcpb.
set -euo pipefail

# Pinned tools: a new version is a deliberate change (.ci/run reads these).
CARGO_DEB_VERSION=3.8.0
MCPB_VERSION=2.1.2

root=$(cd "$(dirname "$0")/../../.." && pwd)
target=${CARGO_TARGET_DIR:-$root/target}
case "${1:-}" in
--ci)
    # The test build makes the binary as subterminator-under-test (the same
    # program: tests/src/bin calls subterminator::main). It is packaged as it
    # is, debug info and all, because CI has no time for a release build.
    # A target/debug/subterminator may be left from an older build; the
    # test binary is the one this build made.
    profile=dev
    dir=$target/debug
    from=$dir/subterminator-under-test
    # What is checked is what the packages hold, not how small they are:
    # the staged binary loses its line tables (as the release profile's
    # has none) and the .deb is compressed fast. 40.5 s of packaging
    # down to 11.2 s (BENCHMARKS.md, "CI's own time").
    deb_flags=(--fast)
    strip_binary=1
    ;;
"")
    profile=release
    dir=$target/release
    cargo build --locked --release -p subterminator --bin subterminator --manifest-path "$root/Cargo.toml"
    from=$dir/subterminator
    deb_flags=()
    strip_binary=
    ;;
*)
    echo "usage: $0 [--ci]" >&2
    exit 2
    ;;
esac
if [ ! -x "$from" ]; then
    echo "error: no binary at $from; build it first (cargo test --workspace makes the --ci one)" >&2
    exit 1
fi
version=$("$from" --version | awk '{print $2}')

need() {
    command -v "$1" >/dev/null 2>&1 || { echo "error: $1 is missing; $2" >&2; exit 1; }
}
need npx "install Node.js 18 or newer (apt-get install -y nodejs npm)"
need dpkg-deb "install dpkg (Debian or Ubuntu)"
if [ "$(cargo deb --version 2>/dev/null | awk '{print $2}')" != "$CARGO_DEB_VERSION" ]; then
    echo "error: cargo-deb $CARGO_DEB_VERSION is missing; run: cargo install --locked cargo-deb --version $CARGO_DEB_VERSION" >&2
    exit 1
fi

# What the .deb installs, the binary and what it makes, staged in one
# folder (cargo's own outputs are left as cargo made them).
stage=$dir/packaging
rm -rf "$stage"
mkdir -p "$stage/man" "$stage/completions"
cp "$from" "$stage/subterminator"
bin=$stage/subterminator
if [ -n "$strip_binary" ] && command -v strip >/dev/null 2>&1; then
    strip "$bin"
fi
"$bin" manpage "$stage/man" >/dev/null
"$bin" completions bash >"$stage/completions/subterminator.bash"
"$bin" completions zsh >"$stage/completions/_subterminator"
"$bin" completions fish >"$stage/completions/subterminator.fish"

out=$target/packages
mkdir -p "$out"
deb=$out/subterminator_${version}-1_amd64.deb
rm -f "$deb"
(cd "$root" && cargo deb -p subterminator --no-build --profile "$profile" --output "$deb" --quiet "${deb_flags[@]}")

# The bundle: the manifest with this version, and the binary as its entry point.
bundle=$stage/mcpb
mkdir -p "$bundle/server"
sed "s/@VERSION@/$version/" "$root/host/cli/packaging/mcpb/manifest.json" >"$bundle/manifest.json"
cp "$bin" "$bundle/server/subterminator"
chmod 755 "$bundle/server/subterminator"
mcpb=$out/subterminator-${version}-linux-x64.mcpb
rm -f "$mcpb"
npx -y "@anthropic-ai/mcpb@$MCPB_VERSION" validate "$bundle/manifest.json" >/dev/null
npx -y "@anthropic-ai/mcpb@$MCPB_VERSION" pack "$bundle" "$mcpb" >/dev/null

"$root/host/cli/packaging/check.sh" "$deb" "$mcpb"
echo "$deb"
echo "$mcpb"
