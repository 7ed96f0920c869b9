#!/usr/bin/env bash
# Checks what the two packages hold (build.sh runs it; so does CI):
#   check.sh subterminator_<v>-1_amd64.deb subterminator-<v>-linux-x64.mcpb
# The .deb: the binary (and it runs), a man page for the command and each
# subcommand, the three completions, and its dependencies. The .mcpb: the
# manifest, every file it names, an executable entry point, and the tools
# the server really has.
set -euo pipefail
deb=$1
mcpb=$2
fail() { echo "package check failed: $*" >&2; exit 1; }

listing=$(dpkg-deb -c "$deb")
for want in \
    ./usr/bin/subterminator \
    ./usr/share/man/man1/subterminator.1 \
    ./usr/share/man/man1/subterminator-cancel.1 \
    ./usr/share/man/man1/subterminator-mcp.1 \
    ./usr/share/bash-completion/completions/subterminator \
    ./usr/share/zsh/vendor-completions/_subterminator \
    ./usr/share/fish/vendor_completions.d/subterminator.fish \
    ./usr/share/doc/subterminator/copyright; do
    # cargo-deb may gzip man pages; either form counts.
    grep -Eq " ${want//./\\.}(\.gz)?$" <<<"$listing" || fail "$deb lacks $want"
done
grep -Eq '^-rwxr-xr-x .* \./usr/bin/subterminator$' <<<"$listing" || fail "usr/bin/subterminator is not executable"
depends=$(dpkg-deb -f "$deb" Depends)
for want in nodejs npm chromium; do
    grep -q "$want" <<<"$depends" || fail "Depends lacks $want: $depends"
done
dpkg-deb -f "$deb" Description | grep -q '@playwright/mcp' || fail "the description does not say the first run fetches @playwright/mcp"

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
dpkg-deb -x "$deb" "$scratch/deb"
"$scratch/deb/usr/bin/subterminator" --version | grep -q '^subterminator ' || fail "the packaged binary does not run"

mkdir "$scratch/mcpb"
(cd "$scratch/mcpb" && unzip -q "$mcpb")
manifest=$scratch/mcpb/manifest.json
[ -f "$manifest" ] || fail "$mcpb has no manifest.json"
python3 - "$manifest" "$scratch/mcpb" <<'EOF'
import json, os, subprocess, sys

manifest_path, root = sys.argv[1:3]
manifest = json.load(open(manifest_path))
entry = os.path.join(root, manifest["server"]["entry_point"])
assert os.path.isfile(entry), f"the entry point {entry} is missing"
assert os.access(entry, os.X_OK), f"the entry point {entry} is not executable"
command = manifest["server"]["mcp_config"]["command"].replace("${__dirname}", root)
assert os.path.realpath(command) == os.path.realpath(entry), f"mcp_config runs {command}, not the entry point"
for placeholder in ("${user_config.model}",):
    assert placeholder in manifest["server"]["mcp_config"]["args"], f"--model does not take {placeholder}"
assert "model" in manifest["user_config"], "no model choice"
assert manifest["compatibility"]["platforms"] == ["linux"], manifest["compatibility"]
assert "@" not in manifest["version"], "the version was not filled in"

# The tools the manifest names are the tools the server lists. Stdin stays
# open until the answer is in: at its end the server stops at once.
server = subprocess.Popen([entry, "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
for message in [
    {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "check", "version": "0"}}},
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
]:
    server.stdin.write(json.dumps(message) + "\n")
server.stdin.flush()
listed = None
for line in server.stdout:
    answer = json.loads(line)
    if answer.get("id") == 2:
        listed = answer
        break
server.stdin.close()
server.wait(timeout=30)
assert listed is not None, "the server did not list its tools"
served = sorted(t["name"] for t in listed["result"]["tools"])
named = sorted(t["name"] for t in manifest["tools"])
assert served == named, f"the manifest names {named}, the server lists {served}"
print(f"mcpb: manifest {manifest['version']}, entry point {manifest['server']['entry_point']}, {len(served)} tools")
EOF
echo "deb: $(dpkg-deb -f "$deb" Package) $(dpkg-deb -f "$deb" Version), $(grep -c '' <<<"$listing") entries; Depends: $depends"
