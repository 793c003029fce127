#!/bin/sh
# Manual check, as root on Linux without systemd running (not part of `npm test`): runs the
# unit's ExecStart under what docs/fuelprice.service asks of systemd, emulated:
#   ProtectSystem=strict   / read-only (own mount namespace) but the state directory
#   ProtectHome=yes        /home, /root and /run/user empty and read-only
#   User=                  an unprivileged user (nobody), UMask=0077, NoNewPrivileges=yes
#   SystemCallFilter=@system-service with SystemCallErrorNumber=EPERM (libseccomp; the list
#                          is systemd-analyze's, so the same as the installed systemd's)
# then makes the database and a token the way docs/DEPLOY.md says, asks /health and an API route, stops the
# primary alone with SIGTERM (KillMode=mixed) and expects exit 0.
# Needs: systemd-analyze (package systemd), python3-seccomp, util-linux (unshare, setpriv), curl,
# and a built checkout (npm ci builds it).
#   sh test/deploy/unit-sandbox.sh
# NODE: the node to run, by default the unit's own ExecStart path (/opt/fuelprice/node24/bin/node,
# where docs/DEPLOY.md installs Node 24); elsewhere, for example:
#   FUELPRICE_NODE24_DIR=/tmp/node24 sh -c '. scripts/node24.sh' && NODE=/tmp/node24/bin/node sh test/deploy/unit-sandbox.sh
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
STATE=$(mktemp -d /tmp/fuelprice-unit-XXXXXX)
chown 65534:65534 "$STATE" && chmod 0750 "$STATE"
PORT=${PORT:-18089}
NODE=${NODE:-$(sed -n 's/^ExecStart=\([^ ]*\) .*/\1/p' "$ROOT/docs/fuelprice.service")}
FILTER=$(mktemp /tmp/fuelprice-seccomp-XXXXXX.py)
trap 'rm -rf "$STATE" "$FILTER"' EXIT
chmod 0644 "$FILTER"

cat > "$FILTER" <<'EOF'
import errno, os, subprocess, sys, ctypes
import seccomp
groups, current = {}, None
for line in subprocess.run(['systemd-analyze', 'syscall-filter'], capture_output=True, text=True, check=True).stdout.split('\n'):
    if line.startswith('@'):
        current = line.strip(); groups[current] = []
    elif current and line.strip() and not line.strip().startswith('#'):
        groups[current].append(line.strip())
def expand(group):
    return set().union(*[expand(x) if x.startswith('@') else {x} for x in groups.get(group, [])])
rules = seccomp.SyscallFilter(defaction=seccomp.ERRNO(errno.EPERM))
for name in sorted(expand('@system-service')):
    try:
        rules.add_rule(seccomp.ALLOW, name)
    except Exception:
        pass  # a name this architecture does not have
assert ctypes.CDLL(None).prctl(38, 1, 0, 0, 0) == 0  # PR_SET_NO_NEW_PRIVS
rules.load()
os.execvp(sys.argv[1], sys.argv[1:])
EOF

# sandboxed COMMAND...: one process the way the unit starts it. It execs, keeping the process id
# (SIGTERM must reach node itself): call it only in a subshell, `( ... ) &` or `$( ... )`.
sandboxed() {
  exec unshare -m sh -c 'mount --make-rprivate / && for d in /home /root /run/user; do [ ! -d "$d" ] || mount -t tmpfs -o ro,mode=0755 tmpfs "$d"; done && mount --bind "$0" "$0" && mount -o remount,bind,ro / && cd "$0" && umask 0077 && exec "$@"' \
    "$STATE" setpriv --reuid=65534 --regid=65534 --clear-groups --no-new-privs /usr/bin/python3 "$FILTER" "$@"
}

echo "node: $NODE ($("$NODE" --version))"
export DATABASE_URL="sqlite:$STATE/fuelprice.db" HOST=127.0.0.1 PORT LOG_LEVEL=warn
# The database, made once as DEPLOY.md says (serve refuses a SQLite file that does not exist).
(sandboxed "$NODE" "$ROOT/bin/fuelprice.js" migrate)
(sandboxed "$NODE" "$ROOT/bin/fuelprice.js" serve --workers 2) &
PRIMARY=$!
for _ in $(seq 1 60); do curl -sf "http://127.0.0.1:$PORT/health" >/dev/null && break; sleep 0.5; done
TOKEN=$(sandboxed "$NODE" "$ROOT/bin/fuelprice.js" tokens create --name me)
echo "health: $(curl -s "http://127.0.0.1:$PORT/health")"
echo "GET /v1/cities with the token: $(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $TOKEN" "http://127.0.0.1:$PORT/v1/cities")"
kill -TERM "$PRIMARY"
code=0; wait "$PRIMARY" || code=$?
echo "serve exited $code after SIGTERM"
ls -l "$STATE"
test "$code" -eq 0
