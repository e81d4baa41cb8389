#!/usr/bin/env bash
# apt_wait ARGS…: run `apt-get ARGS…`, waiting for a package manager that is already running (unattended
# upgrades, another set-up) instead of failing.  apt-get waits for dpkg's lock with DPkg::Lock::Timeout, but
# `apt-get update` does not wait for the package lists' lock (/var/lib/apt/lists/lock, apt 2.6): a run that
# fails only because a lock is held is tried again every KIFU_APT_POLL seconds (default 5) for up to
# KIFU_APT_WAIT seconds (default 600), saying once that it waits.  Exit status: apt-get's; 75 when the lock
# was still held at the end.  APT_GET names the apt-get to run (tests use a stand-in).
apt_wait() {
  local wait=${KIFU_APT_WAIT:-600} poll=${KIFU_APT_POLL:-5} apt=${APT_GET:-apt-get}
  local start=$SECONDS said="" err rc
  err=$(mktemp)
  while true; do
    rc=0
    "$apt" -o DPkg::Lock::Timeout="$wait" "$@" 2>"$err" || rc=$?
    if [ "$rc" = 0 ] || ! grep -qE "Could not get lock|Unable to lock|Unable to acquire the dpkg frontend lock" "$err"; then
      cat "$err" >&2
      rm -f "$err"
      return "$rc"
    fi
    if [ $((SECONDS - start)) -ge "$wait" ]; then
      echo "== the package manager was still busy after ${wait}s ($(grep -m1 -oE 'held by process [0-9]+ \([^)]*\)' "$err" || echo 'its lock is held'))" >&2
      rm -f "$err"
      return 75
    fi
    if [ -z "$said" ]; then
      echo "== another package manager is running ($(grep -m1 -oE 'held by process [0-9]+ \([^)]*\)' "$err" || echo 'its lock is held')): waiting for it, up to ${wait}s" >&2
      said=1
    fi
    sleep "$poll"
  done
}
