//! Mutations of bytes and of JSON values.
//!
//! Byte mutations aim at binary formats with length fields and offsets:
//! besides bit flips they write integers at the edges of every width
//! (0, 1, 2^31, 2^32 − 1, the input's own length...) in both byte orders,
//! cut, repeat and splice ranges. JSON mutations keep the document
//! parseable and swap one value for a hostile one (a huge or negative
//! number, a string of the wrong length, a deeply nested array, a value
//! transplanted from elsewhere in the document), which reaches the checks
//! behind the JSON parser that byte flips rarely get past.

use serde_json::Value;

/// A deterministic source of mutations (SplitMix64).
pub struct Mutator {
    state: u64,
}

/// Integers at the edges that length and offset checks get wrong.
const INTERESTING: [u64; 18] = [
    0,
    1,
    2,
    7,
    8,
    32,
    0x7f,
    0x80,
    0xff,
    0x100,
    0x7fff,
    0xffff,
    0x7fff_ffff,
    0x8000_0000,
    0xffff_ffff,
    0x1_0000_0000,
    i64::MAX as u64,
    u64::MAX,
];

impl Mutator {
    /// A mutator whose choices are all determined by `seed`.
    pub fn new(seed: u64) -> Self {
        Self { state: seed }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number below `n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next_u64() % n as u64) as usize
        }
    }

    /// True with probability 1/`n`.
    pub fn one_in(&mut self, n: usize) -> bool {
        self.below(n) == 0
    }

    fn random_bytes(&mut self, len: usize) -> Vec<u8> {
        (0..len).map(|_| self.next_u64() as u8).collect()
    }

    /// `input` with one to four byte-level edits; `others` are inputs to
    /// splice from.
    pub fn bytes(&mut self, input: &[u8], others: &[Vec<u8>]) -> Vec<u8> {
        let mut out = input.to_vec();
        for _ in 0..1 + self.below(4) {
            self.edit_bytes(&mut out, others);
        }
        out
    }

    fn edit_bytes(&mut self, out: &mut Vec<u8>, others: &[Vec<u8>]) {
        let len = out.len();
        let at = self.below(len.max(1));
        match self.below(10) {
            0 if len > 0 => out[at] ^= 1 << self.below(8),
            1 if len > 0 => out[at] = self.next_u64() as u8,
            2 => {
                let width = [1, 2, 4, 8][self.below(4)];
                let value = match self.below(4) {
                    0 => len as u64,
                    1 => (len as u64).wrapping_sub(1 + self.below(64) as u64),
                    _ => INTERESTING[self.below(INTERESTING.len())],
                };
                let bytes = if self.one_in(2) {
                    value.to_le_bytes()
                } else {
                    (value << (64 - 8 * width)).to_be_bytes()
                };
                for (k, byte) in bytes[..width].iter().enumerate() {
                    if let Some(slot) = out.get_mut(at + k) {
                        *slot = *byte;
                    }
                }
            }
            3 if len > 0 => {
                let delta = 1 + self.below(16) as u8;
                out[at] = if self.one_in(2) {
                    out[at].wrapping_add(delta)
                } else {
                    out[at].wrapping_sub(delta)
                };
            }
            4 => out.truncate(at),
            5 => {
                let end = (at + 1 + self.below(64)).min(len);
                out.drain(at..end);
            }
            6 if len > 0 => {
                let end = (at + 1 + self.below(256)).min(len);
                let copy = out[at..end].to_vec();
                let to = self.below(len + 1);
                out.splice(to..to, copy);
            }
            7 => {
                let n = 1 + self.below(32);
                let insert = self.random_bytes(n);
                out.splice(at..at, insert);
            }
            8 if !others.is_empty() => {
                let other = &others[self.below(others.len())];
                let from = self.below(other.len().max(1));
                out.truncate(at);
                out.extend_from_slice(other.get(from..).unwrap_or_default());
            }
            _ if len > 1 => {
                let (from, to) = (self.below(len), self.below(len));
                let n = (1 + self.below(64)).min(len - from).min(len - to);
                out.copy_within(from..from + n, to);
            }
            _ => out.push(self.next_u64() as u8),
        }
    }

    /// `input` with one to three values replaced, removed or duplicated.
    pub fn json(&mut self, input: &Value) -> Value {
        let mut out = input.clone();
        for _ in 0..1 + self.below(3) {
            let paths = paths(&out);
            let path = &paths[self.below(paths.len())];
            let donor = pointer(&out, &paths[self.below(paths.len())]).clone();
            self.edit_json(&mut out, path, donor);
        }
        out
    }

    fn edit_json(&mut self, doc: &mut Value, path: &[Step], donor: Value) {
        // Removing a key or an element acts on the parent.
        if let Some((last, parent)) = path.split_last() {
            if self.one_in(6) {
                match (pointer_mut(doc, parent), last) {
                    (Value::Object(map), Step::Key(key)) => {
                        map.remove(key);
                    }
                    (Value::Array(items), Step::Index(i)) => {
                        items.remove(*i);
                    }
                    _ => {}
                }
                return;
            }
        }
        let node = pointer_mut(doc, path);
        *node = match (node.take(), self.below(12)) {
            (Value::Number(n), 0) => {
                let n = n.as_u64().unwrap_or(0);
                Value::from(if self.one_in(2) {
                    n.wrapping_add(1)
                } else {
                    n.wrapping_sub(1)
                })
            }
            (Value::String(s), 1) if !s.is_empty() => {
                // Same length and alphabet, one character changed: gets
                // past hex and base64 decoders to the checks behind them.
                let mut chars: Vec<char> = s.chars().collect();
                let at = self.below(chars.len());
                let other = chars[self.below(chars.len())];
                chars[at] = if other == chars[at] { '0' } else { other };
                Value::String(chars.into_iter().collect())
            }
            (Value::Array(mut items), 2) if !items.is_empty() => {
                let copy = items[self.below(items.len())].clone();
                items.push(copy);
                Value::Array(items)
            }
            (Value::Array(mut items), 3) => {
                items.truncate(self.below(items.len() + 1));
                Value::Array(items)
            }
            (_, 4) => donor,
            (_, 5) => {
                let mut nested = Value::from(0);
                for _ in 0..[16, 200][self.below(2)] {
                    nested = Value::Array(vec![nested]);
                }
                nested
            }
            (_, 6) => Value::from(INTERESTING[self.below(INTERESTING.len())]),
            (_, 7) => Value::from(-1 - self.below(1 << 20) as i64),
            (_, 8) => Value::from([0.5, 1e308, -0.0][self.below(3)]),
            (_, 9) => Value::String("A".repeat([0, 1, 31, 33, 4096][self.below(5)])),
            (_, 10) => [
                Value::Null,
                Value::Bool(true),
                Value::Array(vec![]),
                Value::Object(Default::default()),
            ][self.below(4)]
            .clone(),
            (original, _) => original,
        };
    }
}

/// One step of a path into a JSON document.
#[derive(Debug, Clone)]
enum Step {
    Key(String),
    Index(usize),
}

/// Every node of `doc`, as paths from the root (the root included).
fn paths(doc: &Value) -> Vec<Vec<Step>> {
    let mut out = Vec::new();
    let mut stack = vec![(Vec::new(), doc)];
    while let Some((path, node)) = stack.pop() {
        match node {
            Value::Object(map) => {
                for (key, child) in map {
                    let mut p = path.clone();
                    p.push(Step::Key(key.clone()));
                    stack.push((p, child));
                }
            }
            Value::Array(items) => {
                for (i, child) in items.iter().enumerate() {
                    let mut p = path.clone();
                    p.push(Step::Index(i));
                    stack.push((p, child));
                }
            }
            _ => {}
        }
        out.push(path);
    }
    out
}

fn pointer<'a>(doc: &'a Value, path: &[Step]) -> &'a Value {
    path.iter().fold(doc, |node, step| match step {
        Step::Key(key) => &node[key.as_str()],
        Step::Index(i) => &node[*i],
    })
}

fn pointer_mut<'a>(doc: &'a mut Value, path: &[Step]) -> &'a mut Value {
    path.iter().fold(doc, |node, step| match step {
        Step::Key(key) => &mut node[key.as_str()],
        Step::Index(i) => &mut node[*i],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_seed_gives_the_same_mutations() {
        let input: Vec<u8> = (0..=255).collect();
        let a: Vec<_> = (0..50)
            .scan(Mutator::new(9), |m, _| Some(m.bytes(&input, &[])))
            .collect();
        let b: Vec<_> = (0..50)
            .scan(Mutator::new(9), |m, _| Some(m.bytes(&input, &[])))
            .collect();
        assert_eq!(a, b);
        assert!(a.iter().any(|m| m.len() != input.len()), "no length change");
        assert!(
            a.iter().any(|m| m.len() == input.len() && *m != input),
            "no in-place edit"
        );
    }

    #[test]
    fn json_mutations_change_the_document_and_keep_it_json() {
        let doc: Value = serde_json::json!({"a": [1, 2, {"b": "c0ffee"}], "d": null});
        let mut m = Mutator::new(1);
        let changed = (0..100).filter(|_| m.json(&doc) != doc).count();
        assert!(
            changed > 50,
            "only {changed} of 100 mutations changed the document"
        );
    }
}
