//! The fuzz targets' bodies (`memplan::fuzzing::targets`, the same functions the
//! `fuzz/` targets call) on seeded random bytes: a few seconds each under `cargo test`,
//! so that CI runs every target on every change. Nothing here asserts a time: the
//! budget only caps how many cases run.

use std::time::{Duration, Instant};

use memplan::fuzzing::{targets, ByteSource};

/// Runs `body` on random byte strings (up to `max_len` long) until `budget` is spent or
/// `max_cases` have run; returns how many ran.
///
/// `FUZZ_SMOKE_SECONDS=S` (a longer local stress run) gives each body S seconds and no
/// case cap; `FUZZ_SMOKE_SEED=K` shifts the seeds, so that a new run sees new bytes.
fn smoke(name: &str, seed: u64, max_len: usize, body: fn(&[u8])) -> usize {
    let env = |k: &str| std::env::var(k).ok().and_then(|v| v.parse::<u64>().ok());
    let (budget, max_cases) = match env("FUZZ_SMOKE_SECONDS") {
        Some(s) => (Duration::from_secs(s), usize::MAX),
        None => (Duration::from_secs(2), 20_000),
    };
    let seed = seed.wrapping_add(env("FUZZ_SMOKE_SEED").unwrap_or(0));
    let started = Instant::now();
    let mut src = ByteSource::new(seed);
    let mut cases = 0;
    while cases < max_cases && (cases < 20 || started.elapsed() < budget) {
        let bytes = src.bytes(max_len);
        let outcome = std::panic::catch_unwind(|| body(&bytes));
        assert!(
            outcome.is_ok(),
            "{name} failed on case {cases} (seed {seed}); bytes: {bytes:?}"
        );
        cases += 1;
    }
    if std::env::var_os("FUZZ_SMOKE_SECONDS").is_some() {
        eprintln!(
            "{name}: {cases} cases in {:.0?} (seed {seed})",
            started.elapsed()
        );
    }
    cases
}

/// Text-like bytes for the parsers: fragments of valid files, cut and mixed with noise,
/// so that the parsers get past the header more often than with plain noise.
fn texty(seed: u64, fragments: &[&str]) -> impl FnMut() -> Vec<u8> {
    let mut src = ByteSource::new(seed);
    let fragments: Vec<Vec<u8>> = fragments.iter().map(|f| f.as_bytes().to_vec()).collect();
    move || {
        let mut out = Vec::new();
        for _ in 0..src.next_u64() % 12 {
            let r = src.next_u64();
            match r % 4 {
                0 => out.extend(src.bytes(6)),
                _ => out.extend(&fragments[(r >> 8) as usize % fragments.len()]),
            }
        }
        out
    }
}

fn smoke_text(name: &str, mut gen: impl FnMut() -> Vec<u8>, body: fn(&[u8])) {
    let started = Instant::now();
    let mut cases = 0;
    while cases < 20_000 && (cases < 20 || started.elapsed() < Duration::from_secs(2)) {
        let bytes = gen();
        let outcome = std::panic::catch_unwind(|| body(&bytes));
        assert!(
            outcome.is_ok(),
            "{name} failed on {:?}",
            String::from_utf8_lossy(&bytes)
        );
        cases += 1;
    }
}

#[test]
fn parse_csv() {
    smoke("parse_csv", 1, 512, targets::parse_csv);
    let fragments = [
        "id,lower,upper,size\n",
        "id,start,end,size,alignment,offset,gaps\n",
        "a,0,3,16\n",
        "b,1,4,8,4,,\n",
        "c,0,9,4,1,0,2-3 5-6\n",
        "\"q,\"\"x\",2,5,1\n",
        ",",
        "\r\n",
        "\u{feff}",
        "-1",
        "18446744073709551615",
        "0x10",
        "NaN",
        "capacity,64\n",
        "# comment\n",
    ];
    smoke_text("parse_csv (text)", texty(2, &fragments), targets::parse_csv);
}

#[test]
fn parse_json() {
    smoke("parse_json", 3, 512, targets::parse_json);
    let fragments = [
        "{\"buffers\": [",
        "{\"id\": \"a\", \"lower\": 0, \"upper\": 3, \"size\": 8}",
        "{\"id\": \"b\", \"start\": 1, \"end\": 4, \"size\": 4, \"alignment\": 4, \"gaps\": [[2, 3]]}",
        ",",
        "]}",
        "{\"tensors\": [",
        "{\"id\": \"t\", \"shape\": [2, 3], \"strides\": [3, 1], \"element_size\": 4, \"lifetime\": [0, 2], \"tiles\": []}",
        "{\"offset\": [0, 0], \"sizes\": [1, 3], \"lifetime\": [1, 3]}",
        "{\"placements\": [{\"id\": \"a\", \"offset\": 0}]}",
        "\"capacity\": 16",
        "null",
        "18446744073709551616",
        "-1",
    ];
    smoke_text(
        "parse_json (text)",
        texty(4, &fragments),
        targets::parse_json,
    );
}

#[test]
fn plan_greedy() {
    smoke("plan_greedy", 5, 1024, targets::plan_greedy);
}

#[test]
fn plan_exact() {
    smoke("plan_exact", 6, 512, targets::plan_exact);
}

#[test]
fn lower_bounds() {
    smoke("lower_bounds", 30, 512, targets::lower_bounds);
}

#[test]
fn plan_boxing() {
    smoke("plan_boxing", 7, 1024, targets::plan_boxing);
}

#[test]
fn plan_telamalloc() {
    smoke("plan_telamalloc", 8, 512, targets::plan_telamalloc);
}

#[test]
fn plan_auto() {
    smoke("plan_auto", 9, 768, targets::plan_auto);
}

#[test]
fn shared_objects() {
    smoke("shared_objects", 10, 1024, targets::shared_objects);
}

#[test]
fn tiles() {
    smoke("tiles", 11, 512, targets::tiles);
}

#[test]
fn checker() {
    smoke("checker", 12, 512, targets::checker);
}

#[test]
fn shares() {
    smoke("shares", 45, 768, targets_shares);
}

fn targets_shares(data: &[u8]) {
    memplan::fuzzing::shares(data)
}
