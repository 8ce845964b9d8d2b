//! The hostile-input corpus in `tests/bad_inputs/`: each `NAME.csv` (with optional extra
//! arguments in `NAME.args`) is paired with `NAME.expected`, whose first line is the exit
//! code and whose second line is the exact one-line error on stderr.

use std::path::Path;
use std::process::Command;

fn run(root: &Path, input: &str, extra: &[&str]) -> (i32, String, usize) {
    run_command(root, "plan", input, extra)
}

fn run_command(root: &Path, command: &str, input: &str, extra: &[&str]) -> (i32, String, usize) {
    let out = Command::new(env!("CARGO_BIN_EXE_memplan"))
        .arg(command)
        .arg(input)
        .args(extra)
        .current_dir(root)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.stdout.len(),
    )
}

/// One case of the corpus: its name, the exit code and the one-line error it expects.
struct Case {
    name: String,
    code: i32,
    message: String,
}

/// The repository root and the corpus's cases whose input ends with `.EXT`, sorted.
fn corpus(ext: &str) -> (std::path::PathBuf, Vec<Case>) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap();
    let dir = root.join("tests/bad_inputs");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.unwrap().file_name().into_string().ok())
        .filter_map(|n| n.strip_suffix(&format!(".{ext}")).map(str::to_string))
        .collect();
    names.sort();
    let cases = names
        .into_iter()
        .map(|name| {
            let expected = std::fs::read_to_string(dir.join(format!("{name}.expected")))
                .unwrap_or_else(|_| panic!("{name}.expected is missing"));
            let mut lines = expected.lines();
            let code = lines.next().unwrap().strip_prefix("exit ").unwrap();
            Case {
                code: code.parse().unwrap(),
                message: lines.next().unwrap().to_string(),
                name,
            }
        })
        .collect();
    (root, cases)
}

#[test]
fn every_bad_input_gets_its_expected_one_line_error() {
    let (root, cases) = corpus("csv");
    assert!(cases.len() >= 15, "the corpus is present");
    for Case {
        name,
        code,
        message,
    } in cases
    {
        let args = std::fs::read_to_string(root.join(format!("tests/bad_inputs/{name}.args")))
            .unwrap_or_default();
        let extra: Vec<&str> = args.split_whitespace().collect();
        let (got_code, stderr, stdout_len) =
            run(&root, &format!("tests/bad_inputs/{name}.csv"), &extra);
        assert_eq!(got_code, code, "{name}: {stderr}");
        assert_eq!(stderr, format!("{message}\n"), "{name}");
        assert_eq!(stdout_len, 0, "{name}: nothing written");
    }
}

/// The JSON cases (`tests/bad_inputs/*.json`, with optional `NAME.args`): `plan` gives
/// the expected one-line error and writes nothing.
#[test]
fn every_bad_json_input_gets_its_expected_one_line_error() {
    let (root, cases) = corpus("json");
    assert!(cases.len() >= 4, "the JSON cases are present");
    for Case {
        name,
        code,
        message,
    } in cases
    {
        let args = std::fs::read_to_string(root.join(format!("tests/bad_inputs/{name}.args")))
            .unwrap_or_default();
        let extra: Vec<&str> = args.split_whitespace().collect();
        let (got_code, stderr, stdout_len) =
            run(&root, &format!("tests/bad_inputs/{name}.json"), &extra);
        assert_eq!(got_code, code, "{name}: {stderr}");
        assert_eq!(stderr, format!("{message}\n"), "{name}");
        assert_eq!(stdout_len, 0, "{name}: nothing written");
    }
}

/// The flatbuffer cases (`tests/bad_inputs/tflite_*.tflite`, written by
/// `cargo test -p memplan-tflite --test corpus -- --ignored`): `memplan tflite` gives the
/// expected one-line error and writes nothing.
#[test]
fn every_bad_tflite_model_gets_its_expected_one_line_error() {
    let (root, cases) = corpus("tflite");
    assert!(cases.len() >= 10, "the flatbuffer cases are present");
    let out = std::env::temp_dir().join(format!("memplan-bad-tflite-{}", std::process::id()));
    for Case {
        name,
        code,
        message,
    } in cases
    {
        let input = format!("tests/bad_inputs/{name}.tflite");
        let (got_code, stderr, stdout_len) =
            run_command(&root, "tflite", &input, &["-o", out.to_str().unwrap()]);
        assert_eq!(got_code, code, "{name}: {stderr}");
        assert_eq!(stderr, format!("{message}\n"), "{name}");
        assert_eq!(stdout_len, 0, "{name}");
        assert!(!out.exists(), "{name}: nothing written");
    }
}

#[test]
fn a_one_megabyte_id_is_refused_without_echoing_it() {
    let path = std::env::temp_dir().join(format!("memplan-huge-id-{}.csv", std::process::id()));
    let mut text = b"id,lower,upper,size\n".to_vec();
    text.extend(std::iter::repeat_n(b'x', 1 << 20));
    text.extend(b",0,3,16\n");
    std::fs::write(&path, &text).unwrap();
    let (code, stderr, _) = run(Path::new("/"), path.to_str().unwrap(), &[]);
    assert_eq!(code, 3, "{stderr}");
    assert!(
        stderr.contains("line 2, column 'id': id is 1048576 bytes long; the limit is 4096"),
        "{stderr}"
    );
    assert!(stderr.len() < 300, "the id is not echoed");
}
