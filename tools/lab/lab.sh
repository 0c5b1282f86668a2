#!/usr/bin/env bash
# A single-machine LAVA lab from Debian's own packages (lava-server, lava-dispatcher, lavacli):
# its PostgreSQL database, the web/API server, the scheduler, the publisher and one worker whose
# devices are this project's boards. No systemd is assumed: the daemons are started from the
# ExecStart lines of Debian's service files and their PIDs kept under build/lab/.
#
#   lab.sh up     install what is missing (apt), start everything, add the boards; idempotent
#   lab.sh down   stop what `up` started; leaves nothing of the lab running
#   lab.sh status one line per daemon
#   lab.sh add BOARD...  add devices for more board files (a lab's variant of a board, by path),
#                 with their device types and health checks, to a running lab
#
# Environment: LAB_BOARD_LOCK (the lock every job that boots a board takes, default
# build/lab/board.lock; a machine shared with other users of the boards passes their lock),
# LAB_APT_LOCK (a lock around apt-get, when the machine has one), LAB_PORT (HTTP, 8000),
# LAB_SSH_PORT (the root side's ssh for the boards' test shells, 2222).
set -euo pipefail
ROOT="${RTDROID_HOME:-$(cd "$(dirname "$0")/../.." && pwd)}"
BUILD="$ROOT/build"
LAB="$BUILD/lab"
VENV="$BUILD/venv"
# Debian's python3 for everything LAVA: a python3 from pyenv or a venv first in PATH has no django
# (postinst fails with "No module named 'django'").
SYSPATH=/usr/sbin:/usr/bin:/sbin:/bin
PORT="${LAB_PORT:-8000}"
WS_PORT=$((PORT + 1))
SSH_PORT="${LAB_SSH_PORT:-2222}"
BOARD_LOCK="${LAB_BOARD_LOCK:-$LAB/board.lock}"
WORKER=rtdroid-lab-worker
URL="http://127.0.0.1:$PORT"
PG_VERSION=15
LAVA_PACKAGES=(lava-server lava-dispatcher lavacli openssh-server postgresql)
# The emulated boards a local lab runs (the host board needs no emulator; it is one too).
LAB_BOARDS="${LAB_BOARDS:-qemu-x86_64 qemu-arm64-xen host}"

mkdir -p "$LAB/pids" "$LAB/logs"
say() { echo "lab: $*"; }
die() { echo "lab: $*" >&2; exit 1; }
sys() { PATH=$SYSPATH "$@"; }
manage() { sys lava-server manage "$@"; }

install_packages() {
  local missing=()
  for p in "${LAVA_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [[ ${#missing[@]} -eq 0 ]] && return 0
  say "installing ${missing[*]} (Debian's packages, about 2 minutes the first time)"
  # No service starts at install time (nothing here runs systemd, and policy-rc.d says no): `up`
  # starts what it needs itself.
  local policy=/usr/sbin/policy-rc.d made_policy=
  if [[ ! -e $policy ]]; then printf '#!/bin/sh\nexit 101\n' > $policy; chmod +x $policy; made_policy=1; fi
  local apt=(env PATH=$SYSPATH DEBIAN_FRONTEND=noninteractive apt-get)
  local opts=(-y -q -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold)
  {
    if [[ -n "${LAB_APT_LOCK:-}" ]]; then exec 9>"$LAB_APT_LOCK"; flock 9; fi
    if ! "${apt[@]}" install "${opts[@]}" "${missing[@]}" >"$LAB/logs/apt.log" 2>&1; then
      "${apt[@]}" update -q >>"$LAB/logs/apt.log" 2>&1
      "${apt[@]}" install "${opts[@]}" "${missing[@]}" >>"$LAB/logs/apt.log" 2>&1 \
        || { tail -20 "$LAB/logs/apt.log" >&2; [[ -n $made_policy ]] && rm -f $policy; die "apt-get install failed (log: $LAB/logs/apt.log)"; }
    fi
  }
  [[ -n $made_policy ]] && rm -f $policy
  return 0
}

alive() { [[ -f "$LAB/pids/$1" ]] && kill -0 "$(cat "$LAB/pids/$1")" 2>/dev/null; }

# start NAME CMD...: a daemon in its own session, its PID in build/lab/pids/NAME
start() {
  local name=$1; shift
  if alive "$name"; then return 0; fi
  # exec: the PID kept is the daemon's own, and (setsid) its session's, so `down` stops its children too
  ( exec env PATH=$SYSPATH setsid "$@" >>"$LAB/logs/$name.out" 2>&1 < /dev/null ) &
  echo $! > "$LAB/pids/$name"
}

wait_for() {  # wait_for WHAT SECONDS CMD...
  local what=$1 secs=$2; shift 2
  local t=0
  until "$@" >/dev/null 2>&1; do
    ((t++ < secs * 2)) || die "$what not ready after $secs s (logs: $LAB/logs/)"
    sleep 0.5
  done
}

database() {
  if ! sys pg_ctlcluster $PG_VERSION main status >/dev/null 2>&1; then
    sys pg_ctlcluster $PG_VERSION main start
    touch "$LAB/pids/postgresql.ours"   # `down` stops only a cluster `up` started
  fi
  wait_for PostgreSQL 30 sys pg_isready -q
  # Debian's postinst skipped the database while PostgreSQL was down: run it again (it creates
  # the role, the database and settings.d/00-database.yaml, and migrates; a no-op once done).
  if ! sys test -s /etc/lava-server/settings.d/00-database.yaml \
     || ! sys su postgres -c "psql -tAc \"SELECT 1 FROM pg_database WHERE datname='lavaserver'\"" | grep -q 1; then
    say "creating the LAVA database"
    sys python3 /usr/share/lava-server/postinst.py >"$LAB/logs/postinst.log" 2>&1 \
      || { tail -20 "$LAB/logs/postinst.log" >&2; die "postinst.py failed"; }
  else
    manage migrate --noinput >"$LAB/logs/migrate.log" 2>&1 || { tail "$LAB/logs/migrate.log" >&2; die "migrate failed"; }
  fi
}

# The root side of the boards: sshd on 127.0.0.1 only, for LAVA's ssh test shells (key only).
root_side_ssh() {
  local d="$LAB/ssh"
  mkdir -p "$d" && chmod 700 "$d"
  [[ -f "$d/host_ed25519" ]] || sys ssh-keygen -q -t ed25519 -N '' -f "$d/host_ed25519"
  [[ -f "$d/lava_ed25519" ]] || sys ssh-keygen -q -t ed25519 -N '' -C rtdroid-lab -f "$d/lava_ed25519"
  # The lab's own key, in the lab's own authorized_keys file: nothing of the user's ~/.ssh changes.
  echo "restrict,pty $(cat "$d/lava_ed25519.pub")" > "$d/authorized_keys"
  # The dispatcher reads the identity as a path under /etc/lava-server/dispatcher-config/.
  install -D -m 600 "$d/lava_ed25519" /etc/lava-server/dispatcher-config/device/rtdroid-lab_ed25519
  install -m 644 "$d/lava_ed25519.pub" /etc/lava-server/dispatcher-config/device/rtdroid-lab_ed25519.pub
  cat > "$d/sshd_config" <<EOF
Port $SSH_PORT
ListenAddress 127.0.0.1
HostKey $d/host_ed25519
PidFile $LAB/pids/sshd.pid
AuthorizedKeysFile $d/authorized_keys
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
AcceptEnv LANG LC_*
Subsystem sftp internal-sftp
SetEnv RTDROID_HOME=$ROOT RTDROID_BOARD_LOCK=$BOARD_LOCK
EOF
  mkdir -p /run/sshd
  if ! alive sshd; then
    sys /usr/sbin/sshd -f "$d/sshd_config" -E "$LAB/logs/sshd.log" || die "sshd did not start (log: $LAB/logs/sshd.log)"
    wait_for sshd 10 test -s "$LAB/pids/sshd.pid"
    cp "$LAB/pids/sshd.pid" "$LAB/pids/sshd"
  fi
}

server() {
  start gunicorn gunicorn3 lava_server.wsgi -u lavaserver -g lavaserver --worker-class eventlet \
    --workers 2 --bind 127.0.0.1:$PORT --log-file "$LAB/logs/gunicorn.log"
  start scheduler lava-server manage lava-scheduler --level INFO --log-file "$LAB/logs/scheduler.log"
  start publisher lava-server manage lava-publisher --level INFO --log-file "$LAB/logs/publisher.log" \
    --host 127.0.0.1 --port $WS_PORT
  wait_for "the LAVA server" 60 curl -fs "$URL/api/v0.2/system/version/"
}

admin() {
  local token_file="$LAB/admin.token"
  if ! manage users details admin >/dev/null 2>&1; then
    manage users add --superuser --staff --passwd "$(head -c 12 /dev/urandom | base64)" admin >/dev/null
  fi
  if [[ ! -s $token_file ]]; then
    manage tokens add --user admin --description rtdroid-lab > "$token_file"
  fi
  sys lavacli identities add --uri "$URL/RPC2" --username admin --token "$(cat "$token_file")" rtdroid-lab
}

worker() {
  # Started before it is added: from 127.0.0.0/8 a worker registers itself, without a token, only
  # when no worker of that name exists yet.
  start worker lava-worker --name $WORKER --url "$URL/" --ws-url "http://127.0.0.1:$WS_PORT/ws/" \
    --log-file "$LAB/logs/worker.log" --level INFO
  wait_for "worker $WORKER" 60 bash -c "PATH=$SYSPATH lavacli -i rtdroid-lab workers show $WORKER | grep -q 'state *: Online'"
}

devices() {
  # Device dictionaries and device-type templates rendered from the board files.
  local out="$LAB/lava"
  rm -rf "$out"
  "$VENV/bin/rtdroid" lava render $(printf -- '--board %s ' $LAB_BOARDS) --ssh-port "$SSH_PORT" --output "$out" >/dev/null
  local cfg=/etc/lava-server/dispatcher-config
  for t in "$out"/device-types/*.jinja2; do install -m 644 "$t" "$cfg/device-types/"; done
  # Each device type's health check (LAVA runs it on a device before it takes jobs, then daily).
  for h in "$out"/health-checks/*.yaml; do install -D -m 644 "$h" "$cfg/health-checks/$(basename "$h")"; done
  for f in "$out"/devices/*.jinja2; do
    local dev; dev=$(basename "$f" .jinja2)
    local type; type=$(sed -n 's/^{# device_type: \(.*\) #}$/\1/p' "$f")
    manage device-types details "$type" >/dev/null 2>&1 || manage device-types add "$type" >/dev/null
    if ! manage devices details "$dev" >/dev/null 2>&1; then
      manage devices add --device-type "$type" --worker $WORKER "$dev" >/dev/null
    fi
    install -o lavaserver -g lavaserver -m 644 "$f" "$cfg/devices/$dev.jinja2"
    # LAVA runs the health check on a new device before its first job. A device whose last health
    # check failed or was cancelled (`down` during it) is Bad, out of service: it is checked again
    # (Unknown health), and Good once the check completes. Maintenance and Retired stay as set.
    local health; health=$(manage devices details "$dev" | sed -n 's/^health *: *//p')
    if [[ $health == Bad ]]; then
      manage devices update --health UNKNOWN "$dev" >/dev/null
      say "$dev: health $health -> Unknown: LAVA runs its health check before its jobs"
    fi
  done
}

up() {
  local t0=$SECONDS
  [[ -x "$VENV/bin/rtdroid" ]] || die "no $VENV/bin/rtdroid: run 'make build' first"
  install_packages
  database
  server
  admin
  worker
  root_side_ssh
  devices
  say "up in $((SECONDS - t0)) s: $URL (lavacli -i rtdroid-lab ...), worker $WORKER, boards: $LAB_BOARDS"
}

stop_pid() {  # stop_pid NAME: TERM its session, then KILL after 10 s
  local name=$1 f="$LAB/pids/$1"
  [[ -f $f ]] || return 0
  local pid; pid=$(cat "$f")
  if kill -0 "$pid" 2>/dev/null; then
    kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 20); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
    kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$f"
}

down() {
  # Running jobs are cancelled first: their test shells hang up, and `rtdroid lava robot` brings
  # their boards down before it exits.
  if alive gunicorn && alive worker; then
    local ids; ids=$(sys lavacli -i rtdroid-lab jobs list --state RUNNING 2>/dev/null | sed -n 's/^\* \([0-9]*\):.*/\1/p')
    for id in $ids; do sys lavacli -i rtdroid-lab jobs cancel "$id" || true; done
    for id in $ids; do sys timeout 180 lavacli -i rtdroid-lab jobs wait --polling 2 "$id" >/dev/null 2>&1 || true; done
  fi
  for name in worker scheduler publisher gunicorn sshd; do stop_pid "$name"; done
  rm -f "$LAB/pids/sshd.pid"
  if [[ -f "$LAB/pids/postgresql.ours" ]]; then
    sys pg_ctlcluster $PG_VERSION main stop || true
    rm -f "$LAB/pids/postgresql.ours"
  fi
  say "down"
}

status() {
  for name in gunicorn scheduler publisher worker sshd; do
    if alive "$name"; then echo "$name: running (pid $(cat "$LAB/pids/$name"))"; else echo "$name: stopped"; fi
  done
}

case "${1:-}" in
  up) up ;;
  down) down ;;
  status) status ;;
  install) install_packages ;;
  add) shift; [[ $# -gt 0 ]] || die "usage: lab.sh add BOARD..."
       alive gunicorn && alive worker || die "the lab is not up (make lab)"
       LAB_BOARDS="$*" devices ;;
  *) die "usage: lab.sh up|down|status|add BOARD..." ;;
esac
