# shellcheck shell=bash
# Sourced by ./sluice, ./mvnw and .ci/run: make JAVA_HOME point at a JDK >= 21.
# Order: JAVA_HOME if new enough, else the `java` on PATH if new enough, else the newest JDK >= 21
# under /usr/lib/jvm (or $SLUICE_JDK_DIRS). Prints a clear message and returns 1 when none exists.

sluice_java_major() {
  # $1: path to a java binary; prints its major version (17, 21, 25, ...) or nothing
  "$1" -XshowSettings:properties -version 2>&1 \
    | sed -n 's/^ *java\.specification\.version = \([0-9][0-9]*\).*/\1/p' | head -n 1
}

sluice_select_jdk() {
  local want=21 v candidate best="" best_v=0 dir
  if [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/java" ]; then
    v=$(sluice_java_major "$JAVA_HOME/bin/java")
    if [ -n "$v" ] && [ "$v" -ge "$want" ]; then export JAVA_HOME; return 0; fi
  fi
  if command -v java >/dev/null 2>&1; then
    candidate=$(command -v java)
    v=$(sluice_java_major "$candidate")
    if [ -n "$v" ] && [ "$v" -ge "$want" ]; then
      candidate=$(readlink -f "$candidate")
      export JAVA_HOME="${candidate%/bin/java}"
      return 0
    fi
  fi
  for dir in ${SLUICE_JDK_DIRS:-/usr/lib/jvm}/*; do
    [ -x "$dir/bin/java" ] && [ -x "$dir/bin/javac" ] || continue
    v=$(sluice_java_major "$dir/bin/java")
    if [ -n "$v" ] && [ "$v" -ge "$want" ] && [ "$v" -gt "$best_v" ]; then best="$dir"; best_v="$v"; fi
  done
  if [ -n "$best" ]; then export JAVA_HOME="$best"; return 0; fi
  echo "sluice: needs a JDK 21 or newer; found none (JAVA_HOME, PATH, /usr/lib/jvm). Install one, e.g. 'apt-get install openjdk-21-jdk', or set JAVA_HOME." >&2
  return 1
}
