//! Registered seal proof types: sector size and PoRep variant.
//!
//! Names and numeric ids follow filecoin-proofs-api's `RegisteredSealProof`
//! (the id is the first 8 bytes of the PoRep id): variants V1 (ids 0–4),
//! V1_1 (5–9), V1_1 with synthetic PoRep (10–14) and V1_2 non-interactive
//! PoRep (15–19), each over the sizes 2 KiB, 8 MiB, 512 MiB, 32 GiB, 64 GiB.

use std::fmt;

use filecoin_proofs::{
    PoRepConfig, SECTOR_SIZE_2_KIB, SECTOR_SIZE_32_GIB, SECTOR_SIZE_512_MIB, SECTOR_SIZE_64_GIB,
    SECTOR_SIZE_8_MIB,
};
use storage_proofs_core::api_version::{ApiFeature, ApiVersion};

/// Sector sizes with registered seal proofs, in id order, with their names.
pub const SECTOR_SIZES: [(u64, &str); 5] = [
    (SECTOR_SIZE_2_KIB, "2KiB"),
    (SECTOR_SIZE_8_MIB, "8MiB"),
    (SECTOR_SIZE_512_MIB, "512MiB"),
    (SECTOR_SIZE_32_GIB, "32GiB"),
    (SECTOR_SIZE_64_GIB, "64GiB"),
];

/// The PoRep variants, in id order, with their name suffixes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Variant {
    /// `V1`: API 1.0.
    V1,
    /// `V1_1`: API 1.1, interactive PoRep.
    V1_1,
    /// `V1_1_Feat_SyntheticPoRep`.
    Synthetic,
    /// `V1_2_Feat_NonInteractivePoRep`.
    NonInteractive,
}

const VARIANTS: [(Variant, &str); 4] = [
    (Variant::V1, "V1"),
    (Variant::V1_1, "V1_1"),
    (Variant::Synthetic, "V1_1_Feat_SyntheticPoRep"),
    (Variant::NonInteractive, "V1_2_Feat_NonInteractivePoRep"),
];

/// A registered seal proof type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProofType {
    /// Sector size in bytes.
    pub sector_size: u64,
    /// PoRep variant.
    pub variant: Variant,
}

impl ProofType {
    /// Parses a name such as `StackedDrg32GiBV1_1`.
    pub fn from_name(name: &str) -> Option<Self> {
        let rest = name.strip_prefix("StackedDrg")?;
        SECTOR_SIZES.iter().find_map(|&(sector_size, size_name)| {
            let suffix = rest.strip_prefix(size_name)?;
            VARIANTS
                .iter()
                .find(|(_, variant_name)| *variant_name == suffix)
                .map(|&(variant, _)| Self {
                    sector_size,
                    variant,
                })
        })
    }

    /// The interactive V1_1 proof of a sector size, if it is a registered size.
    pub fn interactive(sector_size: u64) -> Option<Self> {
        SECTOR_SIZES
            .iter()
            .any(|&(size, _)| size == sector_size)
            .then_some(Self {
                sector_size,
                variant: Variant::V1_1,
            })
    }

    fn size_index(&self) -> usize {
        SECTOR_SIZES
            .iter()
            .position(|&(size, _)| size == self.sector_size)
            .expect("registered size")
    }

    fn variant_index(&self) -> usize {
        VARIANTS
            .iter()
            .position(|&(v, _)| v == self.variant)
            .expect("known variant")
    }

    /// The numeric id filecoin-proofs-api derives the PoRep id from.
    /// Only registered sizes have one (this panics for another).
    pub fn id(&self) -> u64 {
        (5 * self.variant_index() + self.size_index()) as u64
    }

    /// The proof type of a numeric `RegisteredSealProof` id (what Lotus
    /// and Curio send), if it is one.
    pub fn from_id(id: u64) -> Option<Self> {
        let (variant, size) = (id / 5, id % 5);
        Some(Self {
            sector_size: SECTOR_SIZES.get(size as usize)?.0,
            variant: VARIANTS.get(variant as usize)?.0,
        })
    }

    /// The PoRep configuration filecoin-proofs uses for this proof type
    /// (a registered size: its PoRep id comes from [`Self::id`]).
    pub fn config(&self) -> PoRepConfig {
        let mut porep_id = [0u8; 32];
        porep_id[..8].copy_from_slice(&self.id().to_le_bytes());
        let (version, features) = match self.variant {
            Variant::V1 => (ApiVersion::V1_0_0, vec![]),
            Variant::V1_1 => (ApiVersion::V1_1_0, vec![]),
            Variant::Synthetic => (ApiVersion::V1_1_0, vec![ApiFeature::SyntheticPoRep]),
            Variant::NonInteractive => (ApiVersion::V1_2_0, vec![ApiFeature::NonInteractivePoRep]),
        };
        PoRepConfig::new_groth16_with_features(self.sector_size, porep_id, version, features)
            .expect("registered proof types have compatible features")
    }

    /// Its number of partitions; `None` for a sector size that is not
    /// registered (the test shapes of 16 KiB and 32 KiB), which has no
    /// configuration of its own.
    pub fn partitions(&self) -> Option<usize> {
        SECTOR_SIZES
            .iter()
            .any(|&(size, _)| size == self.sector_size)
            .then(|| usize::from(self.config().partitions))
    }

    /// Whether the proof is non-interactive (and aggregated by filecoin-proofs).
    pub fn is_non_interactive(&self) -> bool {
        self.variant == Variant::NonInteractive
    }
}

impl fmt::Display for ProofType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let size = size_name(self.sector_size);
        let variant = VARIANTS[self.variant_index()].1;
        write!(f, "StackedDrg{size}{variant}")
    }
}

/// A sector size as proof type names spell it (`2KiB`, `32GiB`), for any
/// size: filecoin-proofs also seals unregistered test sizes (16 KiB has
/// the tree shape of 32 GiB, 32 KiB that of 64 GiB), and a name must never
/// be what fails.
pub fn size_name(bytes: u64) -> String {
    const UNITS: [(u32, &str); 3] = [(30, "GiB"), (20, "MiB"), (10, "KiB")];
    UNITS
        .iter()
        .find(|&&(shift, _)| bytes >= 1 << shift && bytes.is_multiple_of(1 << shift))
        .map_or_else(
            || format!("{bytes}B"),
            |&(shift, unit)| format!("{}{unit}", bytes >> shift),
        )
}

/// Parses a sector size such as `2KiB`, `32GiB` or a number of bytes.
pub fn parse_sector_size(text: &str) -> Option<u64> {
    SECTOR_SIZES
        .iter()
        .find(|(_, name)| name.eq_ignore_ascii_case(text))
        .map(|&(size, _)| size)
        .or_else(|| {
            text.parse()
                .ok()
                .filter(|n| SECTOR_SIZES.iter().any(|&(size, _)| size == *n))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_ids_round_trip() {
        let p = ProofType::from_name("StackedDrg32GiBV1_1").unwrap();
        assert_eq!((p.sector_size, p.id()), (SECTOR_SIZE_32_GIB, 8));
        assert_eq!(p.to_string(), "StackedDrg32GiBV1_1");
        let ni = ProofType::from_name("StackedDrg2KiBV1_2_Feat_NonInteractivePoRep").unwrap();
        for id in 0..20 {
            assert_eq!(ProofType::from_id(id).unwrap().id(), id);
        }
        assert_eq!(ProofType::from_id(8).unwrap(), p);
        assert_eq!(ProofType::from_id(20), None);
        assert_eq!(ni.id(), 15);
        assert!(ni.is_non_interactive());
        assert_eq!(ProofType::from_name("StackedDrg2KiBV1").unwrap().id(), 0);
        assert_eq!(
            ProofType::from_name("StackedDrg64GiBV1_1_Feat_SyntheticPoRep")
                .unwrap()
                .id(),
            14
        );
        assert!(ProofType::from_name("StackedDrg3KiBV1_1").is_none());
        for (size, name) in SECTOR_SIZES {
            assert_eq!(size_name(size), name);
        }
        let test_size = ProofType {
            sector_size: 16 << 10,
            variant: Variant::V1_1,
        };
        assert_eq!(test_size.to_string(), "StackedDrg16KiBV1_1");
        assert_eq!(size_name(3000), "3000B");
        assert_eq!(parse_sector_size("8mib"), Some(SECTOR_SIZE_8_MIB));
        assert_eq!(parse_sector_size("2048"), Some(SECTOR_SIZE_2_KIB));
        assert_eq!(parse_sector_size("3000"), None);
    }
}
