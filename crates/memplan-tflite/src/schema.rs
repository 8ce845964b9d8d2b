//! The part of TFLite's flatbuffer schema that memplan reads, written by hand for the
//! `flatbuffers` runtime.
//!
//! Each table lists only the fields memplan needs, with the field ids of TFLite's
//! `schema.fbs` (a field with id `k` sits at vtable slot `4 + 2k`). Fields that are not
//! listed are neither verified nor read: they are copied through as bytes by the writer.
//!
//! | table | fields read (id) |
//! |---|---|
//! | `Model` | `version` (0), `operator_codes` (1), `subgraphs` (2), `buffers` (4), `metadata` (6), `external_buffers` (9) |
//! | `SubGraph` | `tensors` (0), `inputs` (1), `outputs` (2), `operators` (3) |
//! | `Tensor` | `shape` (0), `type` (1), `buffer` (2), `name` (3), `is_variable` (5) |
//! | `Operator` | `opcode_index` (0), `inputs` (1), `outputs` (2), `builtin_options_type` (3), `builtin_options` (4), `large_custom_options_offset` (9), `large_custom_options_size` (10) |
//! | `OperatorCode` | `deprecated_builtin_code` (0), `builtin_code` (3) |
//! | `Buffer` | `data` (0), `offset` (1), `size` (2) |
//! | `Metadata` | `name` (0), `buffer` (1) |
//! | `IfOptions`, `WhileOptions`, `CallOnceOptions` | the subgraph indices (0, 1) |
//!
//! Safety: the accessors call `flatbuffers::Table::get`, which trusts that the field has
//! the type asked for. Every accessor here reads a field that the same table's
//! `run_verifier` visits with that type, and tables are only reached through
//! [`verified_model`], which runs the verifier over the whole reachable subset first.
//! Strings (names) are read as byte vectors, so a name that is not UTF-8 is not an error.

use flatbuffers::{
    Follow, ForwardsUOffset, InvalidFlatbuffer, Table, VOffsetT, Vector, Verifiable, Verifier,
    VerifierOptions,
};

/// The vtable slot of field id `id`.
const fn slot(id: u16) -> VOffsetT {
    4 + 2 * id
}

type Bytes<'a> = Vector<'a, u8>;
type Ints<'a> = Vector<'a, i32>;
type Tables<'a, T> = Vector<'a, ForwardsUOffset<T>>;

/// Declares a table: the wrapper type, its `Follow` impl and its verifier over `fields`
/// (name, id, type).
macro_rules! table {
    ($name:ident { $($field:literal : $id:expr => $ty:ty),* $(,)? }) => {
        #[derive(Copy, Clone)]
        pub struct $name<'a>(Table<'a>);

        impl<'a> Follow<'a> for $name<'a> {
            type Inner = $name<'a>;
            unsafe fn follow(buf: &'a [u8], loc: usize) -> Self::Inner {
                // SAFETY: forwarded from the caller (a verified position).
                $name(unsafe { Table::new(buf, loc) })
            }
        }

        impl Verifiable for $name<'_> {
            fn run_verifier(v: &mut Verifier, pos: usize) -> Result<(), InvalidFlatbuffer> {
                v.visit_table(pos)?
                    $(.visit_field::<$ty>($field, slot($id), false)?)*
                    .finish();
                Ok(())
            }
        }

        impl<'a> $name<'a> {
            /// The table's position in the file.
            #[allow(dead_code)]
            pub fn position(&self) -> usize {
                self.0.loc()
            }

            /// Field `id` as `T`, which must be the type the verifier visited it with.
            fn field<T: Follow<'a> + 'a>(&self, id: u16) -> Option<T::Inner> {
                // SAFETY: only called by the accessors below, each with its field's
                // verified type.
                unsafe { self.0.get::<T>(slot(id), None) }
            }
        }
    };
}

table!(Model {
    "version": 0 => u32,
    "operator_codes": 1 => ForwardsUOffset<Tables<'_, OperatorCode>>,
    "subgraphs": 2 => ForwardsUOffset<Tables<'_, SubGraph>>,
    "buffers": 4 => ForwardsUOffset<Tables<'_, Buffer>>,
    "metadata": 6 => ForwardsUOffset<Tables<'_, Metadata>>,
    "external_buffers": 9 => ForwardsUOffset<Vector<'_, u32>>,
});

table!(SubGraph {
    "tensors": 0 => ForwardsUOffset<Tables<'_, Tensor>>,
    "inputs": 1 => ForwardsUOffset<Ints<'_>>,
    "outputs": 2 => ForwardsUOffset<Ints<'_>>,
    "operators": 3 => ForwardsUOffset<Tables<'_, Operator>>,
});

table!(Tensor {
    "shape": 0 => ForwardsUOffset<Ints<'_>>,
    "type": 1 => i8,
    "buffer": 2 => u32,
    "name": 3 => ForwardsUOffset<Bytes<'_>>,
    "is_variable": 5 => bool,
});

table!(OperatorCode {
    "deprecated_builtin_code": 0 => i8,
    "builtin_code": 3 => i32,
});

table!(Buffer {
    "data": 0 => ForwardsUOffset<Bytes<'_>>,
    "offset": 1 => u64,
    "size": 2 => u64,
});

table!(Metadata {
    "name": 0 => ForwardsUOffset<Bytes<'_>>,
    "buffer": 1 => u32,
});

table!(SubgraphPair {
    "first": 0 => i32,
    "second": 1 => i32,
});

/// `Operator` is written out: its verifier visits the `builtin_options` union, and only
/// the three members that call subgraphs.
#[derive(Copy, Clone)]
pub struct Operator<'a>(Table<'a>);

/// `BuiltinOptions` members that name subgraphs (`IfOptions`, `WhileOptions`: two
/// indices; `CallOnceOptions`: one), by their union index in `schema.fbs`.
pub const OPTIONS_IF: u8 = 92;
/// See [`OPTIONS_IF`].
pub const OPTIONS_WHILE: u8 = 93;
/// See [`OPTIONS_IF`].
pub const OPTIONS_CALL_ONCE: u8 = 103;

impl<'a> Follow<'a> for Operator<'a> {
    type Inner = Operator<'a>;
    unsafe fn follow(buf: &'a [u8], loc: usize) -> Self::Inner {
        // SAFETY: forwarded from the caller (a verified position).
        Operator(unsafe { Table::new(buf, loc) })
    }
}

impl Verifiable for Operator<'_> {
    fn run_verifier(v: &mut Verifier, pos: usize) -> Result<(), InvalidFlatbuffer> {
        v.visit_table(pos)?
            .visit_field::<u32>("opcode_index", slot(0), false)?
            .visit_field::<ForwardsUOffset<Ints<'_>>>("inputs", slot(1), false)?
            .visit_field::<ForwardsUOffset<Ints<'_>>>("outputs", slot(2), false)?
            .visit_union::<u8, _>(
                "builtin_options_type",
                slot(3),
                "builtin_options",
                slot(4),
                false,
                |key, v, pos| match key {
                    OPTIONS_IF | OPTIONS_WHILE | OPTIONS_CALL_ONCE => {
                        ForwardsUOffset::<SubgraphPair>::run_verifier(v, pos)
                    }
                    _ => Ok(()),
                },
            )?
            .visit_field::<u64>("large_custom_options_offset", slot(9), false)?
            .visit_field::<u64>("large_custom_options_size", slot(10), false)?
            .finish();
        Ok(())
    }
}

impl<'a> Operator<'a> {
    fn field<T: Follow<'a> + 'a>(&self, id: u16) -> Option<T::Inner> {
        // SAFETY: only called by the accessors below, each with its verified type.
        unsafe { self.0.get::<T>(slot(id), None) }
    }

    pub fn opcode_index(&self) -> u32 {
        self.field::<u32>(0).unwrap_or(0)
    }
    pub fn inputs(&self) -> Option<Ints<'a>> {
        self.field::<ForwardsUOffset<Ints<'a>>>(1)
    }
    pub fn outputs(&self) -> Option<Ints<'a>> {
        self.field::<ForwardsUOffset<Ints<'a>>>(2)
    }
    /// The subgraphs this operator calls, from its `builtin_options` when they are
    /// `IfOptions` (then, else), `WhileOptions` (cond, body) or `CallOnceOptions` (init).
    /// The caller checks that the operator's code matches.
    pub fn called_subgraphs(&self) -> (u8, Option<i32>, Option<i32>) {
        let kind = self.field::<u8>(3).unwrap_or(0);
        match kind {
            OPTIONS_IF | OPTIONS_WHILE | OPTIONS_CALL_ONCE => {
                match self.field::<ForwardsUOffset<SubgraphPair<'a>>>(4) {
                    Some(t) => {
                        let first = t.field::<i32>(0).unwrap_or(0);
                        let second = t.field::<i32>(1).unwrap_or(0);
                        let second = (kind != OPTIONS_CALL_ONCE).then_some(second);
                        (kind, Some(first), second)
                    }
                    None => (kind, None, None),
                }
            }
            _ => (kind, None, None),
        }
    }
    /// `large_custom_options_offset` and `_size`: custom options stored after the
    /// flatbuffer, at an absolute file offset.
    pub fn large_custom_options(&self) -> (u64, u64) {
        (
            self.field::<u64>(9).unwrap_or(0),
            self.field::<u64>(10).unwrap_or(0),
        )
    }
}

impl<'a> Model<'a> {
    pub fn version(&self) -> u32 {
        self.field::<u32>(0).unwrap_or(0)
    }
    pub fn operator_codes(&self) -> Option<Tables<'a, OperatorCode<'a>>> {
        self.field::<ForwardsUOffset<Tables<'a, OperatorCode<'a>>>>(1)
    }
    pub fn subgraphs(&self) -> Option<Tables<'a, SubGraph<'a>>> {
        self.field::<ForwardsUOffset<Tables<'a, SubGraph<'a>>>>(2)
    }
    pub fn buffers(&self) -> Option<Tables<'a, Buffer<'a>>> {
        self.field::<ForwardsUOffset<Tables<'a, Buffer<'a>>>>(4)
    }
    pub fn metadata(&self) -> Option<Tables<'a, Metadata<'a>>> {
        self.field::<ForwardsUOffset<Tables<'a, Metadata<'a>>>>(6)
    }
    /// How many entries `external_buffers` has (0 when absent).
    pub fn external_buffer_count(&self) -> usize {
        self.field::<ForwardsUOffset<Vector<'a, u32>>>(9)
            .map_or(0, |v| v.len())
    }
}

impl<'a> SubGraph<'a> {
    pub fn tensors(&self) -> Option<Tables<'a, Tensor<'a>>> {
        self.field::<ForwardsUOffset<Tables<'a, Tensor<'a>>>>(0)
    }
    pub fn inputs(&self) -> Option<Ints<'a>> {
        self.field::<ForwardsUOffset<Ints<'a>>>(1)
    }
    pub fn outputs(&self) -> Option<Ints<'a>> {
        self.field::<ForwardsUOffset<Ints<'a>>>(2)
    }
    pub fn operators(&self) -> Option<Tables<'a, Operator<'a>>> {
        self.field::<ForwardsUOffset<Tables<'a, Operator<'a>>>>(3)
    }
}

impl<'a> Tensor<'a> {
    pub fn shape(&self) -> Option<Ints<'a>> {
        self.field::<ForwardsUOffset<Ints<'a>>>(0)
    }
    pub fn tensor_type(&self) -> i8 {
        self.field::<i8>(1).unwrap_or(0)
    }
    pub fn buffer(&self) -> u32 {
        self.field::<u32>(2).unwrap_or(0)
    }
    pub fn name(&self) -> Option<&'a [u8]> {
        self.field::<ForwardsUOffset<Bytes<'a>>>(3)
            .map(|v| v.bytes())
    }
    pub fn is_variable(&self) -> bool {
        self.field::<bool>(5).unwrap_or(false)
    }
}

impl<'a> OperatorCode<'a> {
    /// The operator's code: the larger of `deprecated_builtin_code` and `builtin_code`,
    /// as TFLite's `GetBuiltinCode` reads it (old files fill only the first, new files
    /// both, with 127 in the first for codes above 127).
    pub fn builtin_code(&self) -> i32 {
        let old = i32::from(self.field::<i8>(0).unwrap_or(0));
        let new = self.field::<i32>(3).unwrap_or(0);
        old.max(new)
    }
}

impl<'a> Buffer<'a> {
    pub fn data(&self) -> Option<&'a [u8]> {
        self.field::<ForwardsUOffset<Bytes<'a>>>(0)
            .map(|v| v.bytes())
    }
    /// `offset` and `size`: data stored after the flatbuffer, at an absolute file offset.
    pub fn external(&self) -> (u64, u64) {
        (
            self.field::<u64>(1).unwrap_or(0),
            self.field::<u64>(2).unwrap_or(0),
        )
    }
}

impl<'a> Metadata<'a> {
    pub fn name(&self) -> Option<&'a [u8]> {
        self.field::<ForwardsUOffset<Bytes<'a>>>(0)
            .map(|v| v.bytes())
    }
    pub fn buffer(&self) -> u32 {
        self.field::<u32>(1).unwrap_or(0)
    }
}

/// The file's root `Model`, after verifying every table and vector reachable through the
/// fields above: each offset, length and table lies inside `bytes`.
pub fn verified_model(bytes: &[u8]) -> Result<Model<'_>, InvalidFlatbuffer> {
    let options = VerifierOptions {
        // A string without its NUL is still a name.
        ignore_missing_null_terminator: true,
        ..VerifierOptions::default()
    };
    flatbuffers::root_with_opts::<Model>(&options, bytes)
}
