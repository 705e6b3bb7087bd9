#!/usr/bin/env bash
# Puts Node.js 24 first on PATH in this shell when the machine's node is older (for running node or
# npx by hand: the npm scripts do it by themselves). The binary comes from the npm registry and is
# cached outside the clone, in ~/.cache/hubspot-node24; see scripts/with-node24.mjs.
# Use: source scripts/node24.sh
if _node24_bin=$(node "$(dirname "${BASH_SOURCE[0]}")/with-node24.mjs" --bin-dir); then
  case ":$PATH:" in *":$_node24_bin:"*) ;; *) export PATH="$_node24_bin:$PATH" ;; esac
  unset _node24_bin
else
  unset _node24_bin
  return 1 2>/dev/null || exit 1
fi
