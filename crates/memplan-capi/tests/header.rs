//! The committed header `include/memplan.h` must match `src/lib.rs`: the same functions
//! with the same C signatures, the same status codes, the same options struct. Rust types
//! are mapped to their C spelling and both sides are compared as normalised text.

use std::collections::BTreeMap;

fn read(rel: &str) -> String {
    std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)).unwrap()
}

fn squash(s: &str) -> String {
    let s = s.split_whitespace().collect::<Vec<_>>().join(" ");
    s.replace(" *", "*")
        .replace("* ", "*")
        .replace("( ", "(")
        .replace(" )", ")")
}

fn c_type(rust: &str) -> String {
    let rust = rust.trim();
    if let Some(inner) = rust.strip_prefix("*mut ") {
        return format!("{}*", c_type(inner));
    }
    if let Some(inner) = rust.strip_prefix("*const ") {
        return format!("const {}*", c_type(inner));
    }
    match rust {
        "u64" => "uint64_t",
        "u8" => "uint8_t",
        "u32" => "uint32_t",
        "i32" => "int32_t",
        "usize" => "size_t",
        "c_char" => "char",
        "c_double" => "double",
        "" => "void",
        other => other,
    }
    .to_string()
}

/// `name -> "ret name(type, type)"` from the Rust source.
fn rust_functions(src: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut rest = src;
    while let Some(k) = rest.find("extern \"C\" fn ") {
        rest = &rest[k + "extern \"C\" fn ".len()..];
        let open = rest.find('(').unwrap();
        let name = rest[..open].trim().to_string();
        let close = rest.find(')').unwrap(); // no parentheses inside parameter types
        let params: Vec<String> = rest[open + 1..close]
            .split(',')
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .map(|p| c_type(p.split_once(':').unwrap().1))
            .collect();
        let after = &rest[close + 1..rest.find('{').unwrap()];
        let ret = c_type(after.trim().trim_start_matches("->"));
        let params = if params.is_empty() {
            "void".to_string()
        } else {
            params.join(",")
        };
        out.insert(name.clone(), squash(&format!("{ret} {name}({params})")));
    }
    out
}

/// The same from the header, dropping parameter names.
fn header_functions(h: &str) -> BTreeMap<String, String> {
    let no_comments: String = {
        let mut s = String::new();
        let mut rest = h;
        while let Some(k) = rest.find("/*") {
            s += &rest[..k];
            rest = &rest[k + rest[k..].find("*/").unwrap() + 2..];
        }
        s + rest
    };
    let mut out = BTreeMap::new();
    for decl in no_comments.split(';') {
        let decl = squash(
            decl.lines()
                .filter(|l| !l.trim_start().starts_with('#'))
                .collect::<Vec<_>>()
                .join(" ")
                .as_str(),
        );
        let Some(open) = decl.find("memplan_").filter(|_| decl.contains('(')) else {
            continue;
        };
        if decl.contains("typedef") || decl.contains('{') || decl.contains('}') {
            continue;
        }
        let paren = decl.find('(').unwrap();
        // The name is the identifier just before '('.
        let name_start = decl[..paren]
            .rfind(|c: char| !(c.is_alphanumeric() || c == '_'))
            .map_or(0, |k| k + 1);
        let _ = open;
        let name = decl[name_start..paren].to_string();
        let ret = decl[..name_start].trim().to_string();
        let params: Vec<String> = decl[paren + 1..decl.rfind(')').unwrap()]
            .split(',')
            .map(|p| {
                let p = p.trim();
                if p == "void" {
                    return p.to_string();
                }
                // Drop the parameter name: the last identifier.
                let cut = p
                    .rfind(|c: char| !(c.is_alphanumeric() || c == '_'))
                    .map_or(0, |k| k + 1);
                p[..cut].trim().to_string()
            })
            .collect();
        out.insert(
            name.clone(),
            squash(&format!("{ret} {name}({})", params.join(","))),
        );
    }
    out
}

#[test]
fn header_declares_exactly_the_exported_functions() {
    // Every source file of the crate (lib.rs and its modules: memories, ...).
    let mut files: Vec<String> = std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/src"))
        .expect("src/")
        .map(|e| {
            e.expect("an entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .filter(|n| n.ends_with(".rs"))
        .collect();
    files.sort();
    assert!(files.len() >= 2, "{files:?}");
    let all: String = files.iter().map(|n| read(&format!("src/{n}"))).collect();
    let rust = rust_functions(&all);
    let header = header_functions(&read("include/memplan.h"));
    assert!(rust.len() >= 15, "{rust:?}");
    assert_eq!(
        rust.keys().collect::<Vec<_>>(),
        header.keys().collect::<Vec<_>>(),
        "function names differ"
    );
    for (name, sig) in &rust {
        assert_eq!(sig, &header[name], "signature of {name} differs");
    }
}

#[test]
fn header_status_codes_match() {
    let src = read("src/lib.rs");
    let h = read("include/memplan.h");
    let codes = |text: &str| -> Vec<(String, String)> {
        text.lines()
            .filter_map(|l| {
                let l = l.trim();
                let (name, rest) = l.split_once(" = ")?;
                name.starts_with("MEMPLAN_").then(|| {
                    let value: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
                    (name.to_string(), value)
                })
            })
            .collect()
    };
    let (a, b) = (codes(&src), codes(&h));
    assert_eq!(a.len(), 8);
    assert_eq!(a, b);
}

#[test]
fn header_options_struct_matches() {
    let src = read("src/lib.rs");
    let h = read("include/memplan.h");
    let body = &src[src.find("pub struct memplan_options {").unwrap()..];
    let body = &body[..body.find('}').unwrap()];
    let rust: Vec<String> = body
        .lines()
        .skip(1)
        .filter_map(|l| l.trim().strip_prefix("pub "))
        .map(|f| {
            let (name, ty) = f.trim_end_matches(',').split_once(':').unwrap();
            squash(&format!("{} {}", c_type(ty), name.trim()))
        })
        .collect();
    let cbody = &h[h.find("typedef struct memplan_options {").unwrap()..];
    let cbody = &cbody[cbody.find('{').unwrap() + 1..cbody.find('}').unwrap()];
    let c: Vec<String> = cbody
        .lines()
        .filter_map(|l| l.split(';').next().map(str::trim).filter(|s| !s.is_empty()))
        .map(squash)
        .collect();
    assert_eq!(rust, c);
}
