#!/usr/bin/env bash
# Installs what the appliance needs on a fresh Debian 12 + Node 20 + npm machine.
#   scripts/setup.sh          npm packages (Bun comes as a pinned devDependency)
#   scripts/setup.sh --test   also the Debian packages the tests use: SIP peers and audio tools
set -euo pipefail
cd "$(dirname "$0")/.."

if [[ "${1:-}" == "--test" ]]; then
  need=()
  command -v sipp >/dev/null || need+=(sip-tester)
  command -v baresip >/dev/null || need+=(baresip)
  command -v sox >/dev/null || need+=(sox)
  command -v espeak-ng >/dev/null || need+=(espeak-ng)
  command -v flite >/dev/null || need+=(flite)
  # callers in voices other than the agent's (npm run bench:understanding): festival and its English voices
  command -v text2wave >/dev/null || need+=(festival)
  for v in festvox-kallpc16k festvox-kdlpc16k festvox-us-slt-hts; do dpkg -s "$v" >/dev/null 2>&1 || need+=("$v"); done
  command -v faketime >/dev/null || need+=(faketime) # the suite a year ahead: FAKETIME_DONT_FAKE_MONOTONIC=1 faketime -f +365d npm test
  command -v openssl >/dev/null || need+=(openssl) # and libssl3, whose libcrypto.so.3 SRTP calls
  command -v tcpdump >/dev/null || need+=(tcpdump) # SRTP interop: a loopback capture shows no plain RTP
  command -v systemd-analyze >/dev/null || need+=(systemd)
  command -v wrk >/dev/null || need+=(wrk) # npm run bench:http
  command -v chromium >/dev/null || need+=(chromium) # console tests (playwright-core drives it)
  [[ -e /usr/lib/x86_64-linux-gnu/libpocketsphinx.so.3 || -e /usr/lib/aarch64-linux-gnu/libpocketsphinx.so.3 ]] || need+=(libpocketsphinx3)
  [[ -d /usr/share/pocketsphinx/model/en-us ]] || need+=(pocketsphinx-en-us)
  # scale-out tests: a throwaway PostgreSQL cluster (initdb/pg_ctl in a temp dir) and Kamailio in front of two nodes
  compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null || need+=(postgresql)
  command -v kamailio >/dev/null || [[ -x /usr/sbin/kamailio ]] || need+=(kamailio)
  if ((${#need[@]})); then
    sudo=""
    [[ $(id -u) -ne 0 ]] && sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
  fi
fi

# onnxruntime-node's own install step would fetch CUDA files from outside the npm registry
export ONNXRUNTIME_NODE_INSTALL=skip
# @discordjs/opus builds from source against the system Node headers (no prebuilt download).
export npm_config_nodedir="${npm_config_nodedir:-/usr}"
if [[ ! -x node_modules/.bin/bun || package-lock.json -nt node_modules/.package-lock.json ]]; then
  npm ci --no-audit --no-fund --loglevel=error
fi
node scripts/install-models.mjs
