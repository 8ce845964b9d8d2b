#!/usr/bin/env bash
# Builds the C API's static library, compiles examples/c/plan_and_check.c against it
# with gcc (warnings are errors), and runs it on a benchmark instance; then
# examples/c/three_memories.c (several memories, allowed sets and pins).
set -euo pipefail
cd "$(dirname "$0")/../.."
cargo build -q -p memplan-capi
out="${TMPDIR:-/tmp}/memplan-c-example-$$"
gcc -Wall -Wextra -Werror -std=c11 -I crates/memplan-capi/include \
    examples/c/plan_and_check.c target/debug/libmemplan_capi.a -lpthread -ldl -lm -o "$out"
"$out" benchmarks/minimalloc-challenging/example.12.csv
# Three memories with allowed sets and pins (the full build).
gcc -Wall -Wextra -Werror -std=c11 -I crates/memplan-capi/include \
    examples/c/three_memories.c target/debug/libmemplan_capi.a -lpthread -ldl -lm -o "$out"
"$out" >/dev/null
rm -f "$out"

# The C snippets of the README and of the C guide, each wrapped in a main(), compile, link
# and run too.
snippet="${TMPDIR:-/tmp}/memplan-readme-snippet-$$.c"
for page in README.md docs/c.md; do
    {
        echo '#include <stdio.h>'
        echo '#include "memplan.h"'
        echo 'int main(void) {'
        awk '/^```c$/ {on=1; next} /^```/ {on=0} on' "$page"
        echo 'return 0; }'
    } > "$snippet"
    gcc -Wall -Wextra -Werror -std=c11 -I crates/memplan-capi/include \
        "$snippet" target/debug/libmemplan_capi.a -lpthread -ldl -lm -o "$out"
    "$out"
done
rm -f "$out" "$snippet"
echo "C example and the README's and guide's snippets: ok"
