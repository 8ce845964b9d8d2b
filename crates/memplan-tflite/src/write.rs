//! Writes a copy of a model with an `OfflineMemoryAllocation` metadata entry, leaving
//! every other byte of the original as it was.
//!
//! A flatbuffer's offsets are relative and point forward (to higher addresses), so an
//! object can only refer to objects after it. The copy is therefore the original file
//! behind a new head:
//!
//! ```text
//!   new file:  [ head ............................ ][ the original file, unchanged ]
//!              root offset, "TFL3", new Model table,  old root (now unused), subgraphs,
//!              new buffers and metadata vectors,      tensors, operators, buffers,
//!              the plan's Metadata, Buffer and data   metadata, ... all still valid
//! ```
//!
//! The new `Model` table copies the old one field by field: `version` by value, and
//! every other field as an offset to the same object, now `shift` bytes further on.
//! Only `buffers` and `metadata` point to new vectors in the head, whose entries point
//! to the old tables and to the plan's new ones. `shift` (the head's length) is a
//! multiple of 16, so every object keeps the alignment it had (buffer data is aligned
//! to 16). Absolute file offsets (`Buffer.offset`, large custom options) would not
//! survive the shift; [`crate::model::read`] refuses models that use them.
//!
//! Replacing a plan writes the new words over the old ones instead ([`in_place`]) when
//! they have the same length (the same model: one word per tensor) and the old plan has
//! a buffer of its own: re-planning a planned file keeps its size.

use crate::schema;
use crate::TfliteError;

/// The fields of `Model` that this writer knows (ids 0..=9); a root table with a
/// non-empty field beyond them is refused, since it could hold an offset.
const MODEL_FIELDS: u16 = 10;
const FIELD_VERSION: u16 = 0;
const FIELD_BUFFERS: u16 = 4;
const FIELD_METADATA: u16 = 6;

/// Where the plan goes among the model's buffers.
pub(crate) struct Edit<'p> {
    /// The plan's int32 words (header and offsets).
    pub words: &'p [i32],
    /// A buffer slot to point at the plan's data instead of appending a new buffer.
    pub reuse_buffer: Option<u32>,
    /// Metadata entries (by position) to leave out: the plans being replaced.
    pub drop_metadata: &'p [usize],
}

fn u16_at(b: &[u8], at: usize) -> Result<u16, TfliteError> {
    b.get(at..at + 2)
        .map(|s| u16::from_le_bytes([s[0], s[1]]))
        .ok_or_else(|| TfliteError::Flatbuffer(format!("read past the end at {at}")))
}

fn u32_at(b: &[u8], at: usize) -> Result<u32, TfliteError> {
    b.get(at..at + 4)
        .map(|s| u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
        .ok_or_else(|| TfliteError::Flatbuffer(format!("read past the end at {at}")))
}

/// The absolute positions of a table's fields (`None`: absent), from its vtable.
fn field_positions(b: &[u8], table: usize, count: u16) -> Result<Vec<Option<usize>>, TfliteError> {
    let soffset = u32_at(b, table)? as i32;
    let vtable = (table as i64 - i64::from(soffset)) as usize;
    let vt_size = u16_at(b, vtable)?;
    let mut out = Vec::with_capacity(count as usize);
    for id in 0..count.max((vt_size.saturating_sub(4)) / 2) {
        let slot = 4 + 2 * id;
        let at = if slot + 2 <= vt_size {
            u16_at(b, vtable + slot as usize)?
        } else {
            0
        };
        if id >= count {
            if at != 0 {
                return Err(TfliteError::Unsupported {
                    at: "the model".into(),
                    what: format!(
                        "the Model table has field {id}, newer than the schema memplan knows"
                    ),
                });
            }
            continue;
        }
        out.push((at != 0).then(|| table + at as usize));
    }
    Ok(out)
}

/// The head under construction, and the offsets to fill once its length is known.
struct Head {
    bytes: Vec<u8>,
    /// (field position, target position in the new file) for offsets into the head.
    local: Vec<(usize, usize)>,
    /// (field position, target position in the original file).
    old: Vec<(usize, usize)>,
}

impl Head {
    fn align(&mut self, n: usize) {
        while !self.bytes.len().is_multiple_of(n) {
            self.bytes.push(0);
        }
    }
    fn u16(&mut self, v: u16) {
        self.bytes.extend_from_slice(&v.to_le_bytes());
    }
    fn u32(&mut self, v: u32) -> usize {
        let at = self.bytes.len();
        self.bytes.extend_from_slice(&v.to_le_bytes());
        at
    }
    fn put_u32(&mut self, at: usize, v: u32) {
        self.bytes[at..at + 4].copy_from_slice(&v.to_le_bytes());
    }
    /// A vtable then its table's start (the soffset); returns the table's position.
    fn table(&mut self, inline_size: u16, fields: &[u16]) -> usize {
        self.align(4);
        // The vtable takes 4 + 2k bytes; pad before it so that the table is 4-aligned.
        if fields.len() % 2 == 1 {
            self.u16(0);
        }
        let vtable = self.bytes.len();
        self.u16(4 + 2 * fields.len() as u16);
        self.u16(inline_size);
        for &f in fields {
            self.u16(f);
        }
        let table = self.bytes.len();
        self.u32((table - vtable) as u32);
        table
    }
}

/// The original bytes behind a new head that adds the plan (see the module doc).
pub(crate) fn with_plan(
    src: &[u8],
    root: &schema::Model<'_>,
    edit: &Edit<'_>,
) -> Result<Vec<u8>, TfliteError> {
    let old_root = root.position();
    let fields = field_positions(src, old_root, MODEL_FIELDS)?;
    let mut h = Head {
        bytes: Vec::new(),
        local: Vec::new(),
        old: Vec::new(),
    };
    let root_offset = h.u32(0);
    h.bytes.extend_from_slice(&src[4..8]);
    // The new Model: every field slot present (4 bytes each); absent ones stay absent.
    let present: Vec<bool> = (0..MODEL_FIELDS)
        .map(|id| id == FIELD_BUFFERS || id == FIELD_METADATA || fields[id as usize].is_some())
        .collect();
    let vt: Vec<u16> = (0..MODEL_FIELDS)
        .map(|id| if present[id as usize] { 4 + 4 * id } else { 0 })
        .collect();
    let table = h.table(4 + 4 * MODEL_FIELDS, &vt);
    h.put_u32(root_offset, table as u32);
    let slots: Vec<usize> = (0..MODEL_FIELDS).map(|_| h.u32(0)).collect();
    for id in 0..MODEL_FIELDS {
        let Some(at) = fields[id as usize] else {
            continue;
        };
        if id == FIELD_VERSION {
            let v = u32_at(src, at)?;
            h.put_u32(slots[0], v);
        } else if id != FIELD_BUFFERS && id != FIELD_METADATA {
            h.old
                .push((slots[id as usize], at + u32_at(src, at)? as usize));
        }
    }
    // The buffers vector: the old entries, one maybe replaced, maybe one appended.
    let old_buffers = vector_targets(src, fields[FIELD_BUFFERS as usize])?;
    let plan_buffer_index = edit.reuse_buffer.map_or(old_buffers.len(), |b| b as usize);
    let count = old_buffers.len().max(plan_buffer_index + 1);
    let buffers = aligned_vector(&mut h, count);
    h.local.push((slots[FIELD_BUFFERS as usize], buffers));
    let mut plan_buffer_slot = 0;
    for i in 0..count {
        let slot = buffers + 4 + 4 * i;
        match old_buffers.get(i) {
            _ if i == plan_buffer_index => plan_buffer_slot = slot,
            Some(&target) => h.old.push((slot, target)),
            None => unreachable!("only the plan's slot is past the old buffers"),
        }
    }
    // The metadata vector: the kept entries, then the plan's.
    let old_metadata = vector_targets(src, fields[FIELD_METADATA as usize])?;
    let kept: Vec<usize> = (0..old_metadata.len())
        .filter(|i| !edit.drop_metadata.contains(i))
        .map(|i| old_metadata[i])
        .collect();
    let metadata = aligned_vector(&mut h, kept.len() + 1);
    h.local.push((slots[FIELD_METADATA as usize], metadata));
    for (i, &target) in kept.iter().enumerate() {
        h.old.push((metadata + 4 + 4 * i, target));
    }
    // Metadata { name, buffer }.
    let entry = h.table(12, &[4, 8]);
    h.local.push((metadata + 4 + 4 * kept.len(), entry));
    let name_field = h.u32(0);
    h.u32(plan_buffer_index as u32);
    let name = crate::model::OFFLINE_PLAN_NAME.as_bytes();
    h.local.push((name_field, h.bytes.len()));
    h.u32(name.len() as u32);
    h.bytes.extend_from_slice(name);
    h.bytes.push(0);
    // Buffer { data } with the data 16-aligned (the schema's force_align).
    let buffer = h.table(8, &[4]);
    h.local.push((plan_buffer_slot, buffer));
    let data_field = h.u32(0);
    while !(h.bytes.len() + 4).is_multiple_of(16) {
        h.bytes.push(0);
    }
    h.local.push((data_field, h.bytes.len()));
    h.u32((edit.words.len() * 4) as u32);
    for w in edit.words {
        h.bytes.extend_from_slice(&w.to_le_bytes());
    }
    h.align(16);
    let shift = h.bytes.len();
    if shift + src.len() >= (1usize << 31) {
        return Err(TfliteError::Unsupported {
            at: "the model".into(),
            what: "the planned file would pass the flatbuffer limit of 2 GB".into(),
        });
    }
    for &(at, target) in &h.local.clone() {
        h.put_u32(at, (target - at) as u32);
    }
    for &(at, target) in &h.old.clone() {
        h.put_u32(at, (target + shift - at) as u32);
    }
    let mut out = h.bytes;
    out.extend_from_slice(src);
    Ok(out)
}

/// The file with `words` written over `data`, the data of the plan being replaced (a
/// slice of `src`), when it has their length and is 4-aligned; `None` otherwise. Nothing
/// else changes: re-planning a planned model keeps its size.
pub(crate) fn in_place(src: &[u8], data: &[u8], words: &[i32]) -> Option<Vec<u8>> {
    let at = (data.as_ptr() as usize).checked_sub(src.as_ptr() as usize)?;
    if data.len() != 4 * words.len() || at + data.len() > src.len() || at % 4 != 0 {
        return None;
    }
    let mut out = src.to_vec();
    for (i, w) in words.iter().enumerate() {
        out[at + 4 * i..at + 4 * i + 4].copy_from_slice(&w.to_le_bytes());
    }
    Some(out)
}

/// Reserves a vector of `count` offsets (4-aligned); returns its position.
fn aligned_vector(h: &mut Head, count: usize) -> usize {
    h.align(4);
    let at = h.u32(count as u32);
    h.bytes.resize(h.bytes.len() + 4 * count, 0);
    at
}

/// The target positions of a vector of table offsets whose field is at `field`.
fn vector_targets(src: &[u8], field: Option<usize>) -> Result<Vec<usize>, TfliteError> {
    let Some(field) = field else {
        return Ok(Vec::new());
    };
    let vector = field + u32_at(src, field)? as usize;
    let len = u32_at(src, vector)? as usize;
    (0..len)
        .map(|i| {
            let at = vector + 4 + 4 * i;
            Ok(at + u32_at(src, at)? as usize)
        })
        .collect()
}
