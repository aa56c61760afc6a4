//! Moving eight field elements between blst's 64-bit words and limbs of
//! `LIMB_BITS` bits (52 for IFMA, 48 for the FMA units): loads and stores,
//! gathers and scatters of records, and the repacking of bits between
//! them. One source for every lane arithmetic: each includes it as a
//! child module, so it is compiled with that arithmetic's instructions,
//! `Lanes` type and limb width (`super::*`).

use super::*;

/// Eight field elements, limb-sliced: `self.0[i]` holds limb `i` of each,
/// normalized (below `2^LIMB_BITS`) unless an operation says otherwise.
#[derive(Clone, Copy)]
pub struct Lanes<const LIMBS: usize>(pub [__m512i; LIMBS]);

impl<const LIMBS: usize> Lanes<LIMBS> {
    lane_fns!(
        /// One element, given by its limbs, in all eight lanes.
        #[inline]
        pub fn splat(limbs: &[u64; LIMBS]) -> Self {
            Self(limbs.map(|limb| _mm512_set1_epi64(limb as i64)))
        }
    );
}

impl<const LIMBS: usize> Lanes<LIMBS> {
    lane_fns!(
        /// Eight elements from their 64-bit words (blst's layout).
        pub fn from_words<const WORDS: usize>(elements: &[[u64; WORDS]; 8]) -> Self {
            let rows: [[u64; 8]; WORDS] = std::array::from_fn(|k| elements.map(|e| e[k]));
            // SAFETY: unaligned loads of 64 bytes from arrays of 8 u64.
            let words = rows.map(|row| unsafe { _mm512_loadu_si512(row.as_ptr().cast()) });
            Self::from_word_vectors(&words)
        }

        /// The eight elements as 64-bit words (blst's layout).
        pub fn to_words<const WORDS: usize>(self) -> [[u64; WORDS]; 8] {
            let mut rows = [[0u64; 8]; WORDS];
            for (row, vector) in rows.iter_mut().zip(self.to_word_vectors::<WORDS>()) {
                // SAFETY: an unaligned store of 64 bytes into an array of 8 u64.
                unsafe { _mm512_storeu_si512(row.as_mut_ptr().cast(), vector) };
            }
            std::array::from_fn(|lane| rows.map(|row| row[lane]))
        }

        /// Eight elements of `WORDS` words each, lane `l`'s starting at word
        /// `starts[l]` of `base`.
        ///
        /// # Safety
        /// Every `base + starts[l] .. + WORDS` must be readable `u64`s.
        #[inline]
        pub unsafe fn gather<const WORDS: usize>(base: *const u64, starts: __m512i) -> Self {
            let words: [__m512i; WORDS] = std::array::from_fn(|k| {
                let at = _mm512_add_epi64(starts, _mm512_set1_epi64(k as i64));
                // SAFETY: readable by the caller's promise.
                unsafe { _mm512_i64gather_epi64::<8>(at, base.cast()) }
            });
            Self::from_word_vectors(&words)
        }

        /// Writes the lanes in `lanes` as `WORDS` words each, lane `l` from word
        /// `starts[l]` of `base` on.
        ///
        /// # Safety
        /// Every `base + starts[l] .. + WORDS` of a written lane must be
        /// writable `u64`s, and no two written lanes may overlap.
        #[inline]
        pub unsafe fn scatter<const WORDS: usize>(
            self,
            base: *mut u64,
            starts: __m512i,
            lanes: __mmask8,
        ) {
            for (k, word) in self.to_word_vectors::<WORDS>().into_iter().enumerate() {
                let at = _mm512_add_epi64(starts, _mm512_set1_epi64(k as i64));
                // SAFETY: writable by the caller's promise.
                unsafe { _mm512_mask_i64scatter_epi64::<8>(base.cast(), lanes, at, word) };
            }
        }

        /// Repacks 64-bit words (vector `k`: word `k` of each lane) into limbs.
        #[inline]
        fn from_word_vectors<const WORDS: usize>(words: &[__m512i; WORDS]) -> Self {
            let mask = _mm512_set1_epi64(LIMB_MASK as i64);
            Self(std::array::from_fn(|i| {
                let bit = i * LIMB_BITS as usize;
                let (word, shift) = (bit / 64, bit % 64);
                if word >= WORDS {
                    return _mm512_setzero_si512();
                }
                let mut limb = _mm512_srlv_epi64(words[word], _mm512_set1_epi64(shift as i64));
                if shift > 64 - LIMB_BITS as usize && word + 1 < WORDS {
                    let next =
                        _mm512_sllv_epi64(words[word + 1], _mm512_set1_epi64((64 - shift) as i64));
                    limb = _mm512_or_si512(limb, next);
                }
                _mm512_and_si512(limb, mask)
            }))
        }

        /// Repacks the limbs (each below 2^52) into 64-bit words.
        #[inline]
        fn to_word_vectors<const WORDS: usize>(self) -> [__m512i; WORDS] {
            let mut words = [_mm512_setzero_si512(); WORDS];
            for (i, limb) in self.0.into_iter().enumerate() {
                let bit = i * LIMB_BITS as usize;
                let (word, shift) = (bit / 64, bit % 64);
                if word < WORDS {
                    let low = _mm512_sllv_epi64(limb, _mm512_set1_epi64(shift as i64));
                    words[word] = _mm512_or_si512(words[word], low);
                }
                if shift > 64 - LIMB_BITS as usize && word + 1 < WORDS {
                    let high = _mm512_srlv_epi64(limb, _mm512_set1_epi64((64 - shift) as i64));
                    words[word + 1] = _mm512_or_si512(words[word + 1], high);
                }
            }
            words
        }
    );
}
