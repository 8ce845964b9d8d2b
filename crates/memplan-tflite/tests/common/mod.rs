//! Builds small TFLite models with the `flatbuffers` builder, for tests: the fields are
//! those of TFLite's schema that memplan reads (see `src/schema.rs`), plus a
//! `description` string, which memplan does not read and must carry over.
#![allow(dead_code)]

use flatbuffers::{FlatBufferBuilder, WIPOffset};

pub const ADD: i32 = 0;
pub const CONV: i32 = 3;
pub const IF: i32 = 118;
pub const WHILE: i32 = 119;
pub const CALL_ONCE: i32 = 129;
pub const F32: i8 = 0;
pub const I8: i8 = 9;
pub const STRING: i8 = 5;

#[derive(Clone, Debug)]
pub struct T {
    pub name: String,
    pub shape: Option<Vec<i32>>,
    pub ty: i8,
    pub buffer: u32,
    pub var: bool,
}

/// A float tensor of `shape` with no data (buffer 0).
pub fn t(name: &str, shape: &[i32]) -> T {
    T {
        name: name.into(),
        shape: Some(shape.to_vec()),
        ty: F32,
        buffer: 0,
        var: false,
    }
}

#[derive(Clone, Debug, Default)]
pub struct Op {
    pub code: u32,
    pub inputs: Vec<i32>,
    pub outputs: Vec<i32>,
    /// (options union type, first subgraph, second subgraph).
    pub calls: Option<(u8, i32, i32)>,
}

pub fn op(code: u32, inputs: &[i32], outputs: &[i32]) -> Op {
    Op {
        code,
        inputs: inputs.to_vec(),
        outputs: outputs.to_vec(),
        calls: None,
    }
}

#[derive(Clone, Debug, Default)]
pub struct G {
    pub tensors: Vec<T>,
    pub inputs: Vec<i32>,
    pub outputs: Vec<i32>,
    pub ops: Vec<Op>,
}

#[derive(Clone, Debug, Default)]
pub struct M {
    pub codes: Vec<i32>,
    pub graphs: Vec<G>,
    /// Each buffer's data; buffer 0 should be empty, as converters write it.
    pub buffers: Vec<Option<Vec<u8>>>,
    /// (buffer, offset, size) for buffers that keep data outside the flatbuffer.
    pub external: Vec<(usize, u64, u64)>,
    pub metadata: Vec<(String, u32)>,
    pub description: Option<String>,
}

pub fn build(m: &M) -> Vec<u8> {
    let mut b = FlatBufferBuilder::new();
    let codes: Vec<_> = m
        .codes
        .iter()
        .map(|&c| {
            let s = b.start_table();
            b.push_slot::<i8>(4, c.min(127) as i8, 0);
            b.push_slot::<i32>(10, c, 0);
            b.end_table(s)
        })
        .collect();
    let codes = b.create_vector(&codes);
    let graphs: Vec<_> = m.graphs.iter().map(|g| graph(&mut b, g)).collect();
    let graphs = b.create_vector(&graphs);
    let buffers: Vec<_> = m
        .buffers
        .iter()
        .enumerate()
        .map(|(i, d)| {
            let data = d.as_ref().map(|d| b.create_vector(d));
            let s = b.start_table();
            if let Some(data) = data {
                b.push_slot_always(4, data);
            }
            for &(_, off, size) in m.external.iter().filter(|e| e.0 == i) {
                b.push_slot::<u64>(6, off, 0);
                b.push_slot::<u64>(8, size, 0);
            }
            b.end_table(s)
        })
        .collect();
    let buffers = b.create_vector(&buffers);
    let metadata: Vec<_> = m
        .metadata
        .iter()
        .map(|(name, buffer)| {
            let name = b.create_string(name);
            let s = b.start_table();
            b.push_slot_always(4, name);
            b.push_slot::<u32>(6, *buffer, 0);
            b.end_table(s)
        })
        .collect();
    let metadata = b.create_vector(&metadata);
    let description = m.description.as_deref().map(|d| b.create_string(d));
    let s = b.start_table();
    b.push_slot::<u32>(4, 3, 0);
    b.push_slot_always(6, codes);
    b.push_slot_always(8, graphs);
    if let Some(d) = description {
        b.push_slot_always(10, d);
    }
    b.push_slot_always(12, buffers);
    if !m.metadata.is_empty() {
        b.push_slot_always(16, metadata);
    }
    let root = b.end_table(s);
    b.finish(root, Some("TFL3"));
    b.finished_data().to_vec()
}

fn graph<'a>(
    b: &mut FlatBufferBuilder<'a>,
    g: &G,
) -> WIPOffset<flatbuffers::TableFinishedWIPOffset> {
    let tensors: Vec<_> = g
        .tensors
        .iter()
        .map(|x| {
            let shape = x.shape.as_ref().map(|s| b.create_vector(s));
            let name = b.create_string(&x.name);
            let s = b.start_table();
            if let Some(shape) = shape {
                b.push_slot_always(4, shape);
            }
            b.push_slot::<i8>(6, x.ty, 0);
            b.push_slot::<u32>(8, x.buffer, 0);
            b.push_slot_always(10, name);
            b.push_slot::<bool>(14, x.var, false);
            b.end_table(s)
        })
        .collect();
    let tensors = b.create_vector(&tensors);
    let ops: Vec<_> = g
        .ops
        .iter()
        .map(|o| {
            let inputs = b.create_vector(&o.inputs);
            let outputs = b.create_vector(&o.outputs);
            let options = o.calls.map(|(kind, first, second)| {
                let s = b.start_table();
                b.push_slot::<i32>(4, first, -99);
                if kind != 103 {
                    b.push_slot::<i32>(6, second, -99);
                }
                (kind, b.end_table(s))
            });
            let s = b.start_table();
            b.push_slot::<u32>(4, o.code, 0);
            b.push_slot_always(6, inputs);
            b.push_slot_always(8, outputs);
            if let Some((kind, options)) = options {
                b.push_slot::<u8>(10, kind, 0);
                b.push_slot_always(12, options);
            }
            b.end_table(s)
        })
        .collect();
    let ops = b.create_vector(&ops);
    let inputs = b.create_vector(&g.inputs);
    let outputs = b.create_vector(&g.outputs);
    let s = b.start_table();
    b.push_slot_always(4, tensors);
    b.push_slot_always(6, inputs);
    b.push_slot_always(8, outputs);
    b.push_slot_always(10, ops);
    b.end_table(s)
}

/// A chain `x → CONV(w) → a → ADD(c) → b → CONV(w) → y` with two constants (`w`, `c`)
/// and a variable `v` that the second CONV also reads, plus an empty tensor `e`.
pub fn chain() -> M {
    let mut v = t("v", &[1, 8]);
    v.var = true;
    let mut w = t("w", &[8, 8]);
    w.buffer = 1;
    let mut c = t("c", &[8]);
    c.buffer = 2;
    let e = t("e", &[0, 8]);
    M {
        codes: vec![CONV, ADD],
        graphs: vec![G {
            tensors: vec![
                t("x", &[1, 8]),
                w,
                t("a", &[1, 8]),
                c,
                t("b", &[1, 8]),
                t("y", &[1, 8]),
                v,
                e,
            ],
            inputs: vec![0],
            outputs: vec![5],
            ops: vec![
                op(0, &[0, 1, -1], &[2]),
                op(1, &[2, 3], &[4]),
                op(0, &[4, 1, 6, 7], &[5]),
            ],
        }],
        buffers: vec![None, Some(vec![1; 256]), Some(vec![2; 32])],
        external: vec![],
        metadata: vec![("min_runtime_version".into(), 0)],
        description: Some("test chain".into()),
    }
}

/// Subgraph 0 runs `IF(cond, x) → y` then `ADD(y, x) → z`; subgraphs 1 and 2 are the
/// branches, each `in → ADD → mid → ADD → out`.
pub fn with_if() -> M {
    let branch = |p: &str| G {
        tensors: vec![
            t(&format!("{p}in"), &[4]),
            t(&format!("{p}mid"), &[4]),
            t(&format!("{p}out"), &[4]),
        ],
        inputs: vec![0],
        outputs: vec![2],
        ops: vec![op(1, &[0, 0], &[1]), op(1, &[1, 1], &[2])],
    };
    let mut cond = t("cond", &[1]);
    cond.ty = 6;
    let mut if_op = op(0, &[0, 1], &[2]);
    if_op.calls = Some((92, 1, 2));
    M {
        codes: vec![IF, ADD],
        graphs: vec![
            G {
                tensors: vec![cond, t("x", &[4]), t("y", &[4]), t("z", &[4])],
                inputs: vec![0, 1],
                outputs: vec![3],
                ops: vec![if_op, op(1, &[2, 1], &[3])],
            },
            branch("then_"),
            branch("else_"),
        ],
        buffers: vec![None],
        ..M::default()
    }
}
