//! One-byte coefficient codes.
//!
//! Most R1CS coefficients of the PoRep circuit are +1 (48 %) or −1 (21 %),
//! and the 255 most frequent values cover about 94 % of all non-zeros. Each
//! non-zero therefore carries a single code byte:
//!
//! | code      | coefficient                                   |
//! |-----------|-----------------------------------------------|
//! | 0         | +1 (no multiplication)                        |
//! | 1         | −1 (a subtraction)                            |
//! | 2 ..= 254 | `table[code − 2]`                             |
//! | 255       | `table[escape]`, the next entry of the escape list |
//!
//! The table is sorted by decreasing frequency when a matrix is built, so the
//! escape list holds only the rare values.

use std::collections::HashMap;

use blstrs::Scalar;
use ff::Field;

/// Code of the coefficient +1.
pub const CODE_ONE: u8 = 0;
/// Code of the coefficient −1.
pub const CODE_MINUS_ONE: u8 = 1;
/// First code that indexes the coefficient table directly.
pub const CODE_FIRST_TABLE: u8 = 2;
/// Code whose table index is the next entry of the escape list.
pub const CODE_ESCAPE: u8 = 255;
/// Number of table entries reachable by a direct code (2 ..= 254).
pub const DIRECT_TABLE_ENTRIES: usize = (CODE_ESCAPE - CODE_FIRST_TABLE) as usize;

/// Identifier of an interned coefficient while a matrix is being built.
pub(crate) type CoeffId = u32;
pub(crate) const ID_ONE: CoeffId = 0;
pub(crate) const ID_MINUS_ONE: CoeffId = 1;

/// Interns coefficient values during recording and counts their uses.
///
/// Ids 0 and 1 are reserved for +1 and −1, which are recognised without
/// hashing; every other value is keyed by its Montgomery limbs.
#[derive(Debug, Clone)]
pub(crate) struct CoefficientInterner {
    ids: HashMap<[u64; 4], CoeffId>,
    values: Vec<Scalar>,
    uses: Vec<u64>,
    minus_one: Scalar,
}

impl Default for CoefficientInterner {
    fn default() -> Self {
        Self {
            ids: HashMap::new(),
            values: vec![Scalar::ONE, -Scalar::ONE],
            uses: vec![0, 0],
            minus_one: -Scalar::ONE,
        }
    }
}

impl CoefficientInterner {
    /// Returns the id of `value`, interning it on first use.
    pub(crate) fn intern(&mut self, value: &Scalar) -> CoeffId {
        let id = if *value == Scalar::ONE {
            ID_ONE
        } else if *value == self.minus_one {
            ID_MINUS_ONE
        } else {
            let limbs = blst::blst_fr::from(*value).l;
            let next = self.values.len() as CoeffId;
            let id = *self.ids.entry(limbs).or_insert(next);
            if id == next {
                self.values.push(*value);
                self.uses.push(0);
            }
            id
        };
        self.uses[id as usize] += 1;
        id
    }

    /// The value of an interned id.
    pub(crate) fn value(&self, id: CoeffId) -> &Scalar {
        &self.values[id as usize]
    }

    /// Orders the interned values (other than ±1) by decreasing use and
    /// returns the final table and, for every id, its code and table index.
    pub(crate) fn into_table(self) -> (Vec<Scalar>, Vec<(u8, u32)>) {
        let mut order: Vec<CoeffId> = (2..self.values.len() as CoeffId).collect();
        // Stable tie-break on the id keeps builds deterministic.
        order.sort_by_key(|&id| (std::cmp::Reverse(self.uses[id as usize]), id));
        let mut codes = vec![(CODE_ONE, 0u32); self.values.len()];
        codes[ID_MINUS_ONE as usize] = (CODE_MINUS_ONE, 0);
        let mut table = Vec::with_capacity(order.len());
        for (rank, &id) in order.iter().enumerate() {
            let code = if rank < DIRECT_TABLE_ENTRIES {
                CODE_FIRST_TABLE + rank as u8
            } else {
                CODE_ESCAPE
            };
            codes[id as usize] = (code, rank as u32);
            table.push(self.values[id as usize]);
        }
        (table, codes)
    }
}
