#!/usr/bin/env bash
# System programs the course uses, from Debian's packages where apt-get exists (quick when
# present): bubblewrap (the sandbox's namespaces layer), podman + runc + debootstrap (the docker
# backend's real engine and its locally built base image), chromium (the class report's browser
# test). Each missing one is reported; the tests that need it then skip with the reason.
set -u
declare -A PKG=([bwrap]=bubblewrap [podman]=podman [runc]=runc [debootstrap]=debootstrap
                [fuse-overlayfs]=fuse-overlayfs [chromium]=chromium)
missing=()
for cmd in "${!PKG[@]}"; do command -v "$cmd" >/dev/null 2>&1 || missing+=("${PKG[$cmd]}"); done
[ ${#missing[@]} -eq 0 ] && exit 0
if command -v apt-get >/dev/null 2>&1; then
    echo "setup: installing system packages with apt-get: ${missing[*]}..."
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y -qq "${missing[@]}" >/dev/null 2>&1 || \
        { apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq "${missing[@]}" >/dev/null 2>&1; }
fi
for cmd in "${!PKG[@]}"; do
    command -v "$cmd" >/dev/null 2>&1 || \
        echo "note: ${PKG[$cmd]} could not be installed; the tests that need it will say so and skip"
done
exit 0
