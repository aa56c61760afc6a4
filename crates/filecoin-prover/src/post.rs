//! WindowPoSt and WinningPoSt: per-sector vanilla proofs in, the SNARK the
//! chain takes out.
//!
//! Both are storage-proofs' fallback PoSt circuit, at two shapes: a
//! WindowPoSt partition checks `sector_count` sectors (2349 at 32 GiB) at
//! 10 challenges each, a WinningPoSt proof one sector at 66. The input is
//! what `generate_single_vanilla_proof` returned for each sector, with the
//! randomness and prover id; the output is what filecoin-proofs'
//! `generate_window_post_with_vanilla` (or, for one partition,
//! `generate_single_window_post_with_vanilla`) and
//! `generate_winning_post_with_vanilla` return. The vanilla proofs are
//! arranged into partitions and checked with filecoin-proofs' own functions
//! before any proving, and whole proofs are checked with
//! `verify_window_post` / `verify_winning_post`.
//!
//! One partition of a WindowPoSt (what Curio asks for, one request per
//! partition) is proven as filecoin-proofs proves it: where a sector's
//! challenges do not depend on its place in the deadline (V1_2), as the
//! first partition of a list of its own sectors; before V1_2, against
//! public inputs whose sector list puts the partition's sectors at its
//! index (the circuit and its public inputs only ever read that chunk).
//! The sectors are proven in the order of their numbers, whatever the
//! order the vanilla proofs come in.

use std::collections::BTreeMap;
use std::fmt;
use std::marker::PhantomData;
use std::time::{Duration, Instant};

use filecoin_hashers::Domain;
use filecoin_proofs::parameters::{window_post_setup_params, winning_post_setup_params};
use filecoin_proofs::{
    as_safe_commitment, partition_vanilla_proofs, single_partition_vanilla_proofs,
    verify_window_post, verify_winning_post, with_shape, FallbackPoStSectorProof, PoStConfig,
    PoStType, PublicReplicaInfo, SectorSize, WINDOW_POST_CHALLENGE_COUNT, WINDOW_POST_SECTOR_COUNT,
    WINNING_POST_CHALLENGE_COUNT, WINNING_POST_SECTOR_COUNT,
};
use pce_core::{synthesize_witness, Witness};
use proving_engine::{DeviceProver, EngineOptions, LoadedCircuit, Observer};
use storage_proofs_core::api_version::ApiVersion;
use storage_proofs_core::merkle::{MerkleProofTrait, MerkleTreeTrait};
use storage_proofs_core::proof::ProofScheme;
use storage_proofs_post::fallback::{
    self, FallbackPoSt, FallbackPoStCircuit, FallbackPoStCompound, PublicSector,
};

use crate::compound::{
    self, AnyCircuit, CompoundCircuit, KindResult, KindRun, ProofKind, Scheme, Statement,
};
use crate::proof_type::{size_name, SECTOR_SIZES};
use crate::vanilla::VanillaBytes;
use crate::C2Error;
use crate::{post_fault, post_witness};

/// The fallback PoSt compound proof of a sector shape.
pub struct PoStScheme<Tree>(PhantomData<fn() -> Tree>);

impl<Tree: 'static + MerkleTreeTrait> Scheme for PoStScheme<Tree> {
    type Vanilla = FallbackPoSt<'static, Tree>;
    type Circuit = FallbackPoStCircuit<Tree>;
    type Compound = FallbackPoStCompound<Tree>;

    /// [`post_witness::witness`], our copy of the circuit with native
    /// Poseidon values, unless [`crate::witness::CIRCUIT_WITNESS_ENV`] asks
    /// for storage-proofs' own circuit.
    fn witness(statement: &Statement<Self>, i: usize) -> Result<Witness, C2Error> {
        if crate::witness::storage_proofs_circuit() {
            synthesize_witness(statement.circuit(i)?).map_err(|source| C2Error::Synthesis {
                partition: i,
                source,
            })
        } else {
            post_witness::witness(statement, i)
        }
    }
}

/// Which PoSt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PoStKind {
    /// WinningPoSt: one sector, for a block.
    Winning,
    /// WindowPoSt: every sector of a deadline, in partitions.
    Window,
}

/// A registered PoSt proof type (filecoin-proofs-api's
/// `RegisteredPoStProof`, whose numbering Lotus and Curio share): Winning
/// V1 (ids 0–4), Window V1 (5–9), Window V1_2 (10–14, which Go calls V1_1:
/// the challenge grindability fix), each over the five sector sizes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PoStProofType {
    /// Winning or Window.
    pub kind: PoStKind,
    /// Sector size in bytes.
    pub sector_size: u64,
    /// API version 1.2 (WindowPoSt only).
    pub v1_2: bool,
}

impl PoStProofType {
    /// The proof type of a numeric `RegisteredPoStProof` id, if it is one.
    pub fn from_id(id: u64) -> Option<Self> {
        let sector_size = SECTOR_SIZES.get((id % 5) as usize)?.0;
        let (kind, v1_2) = match id / 5 {
            0 => (PoStKind::Winning, false),
            1 => (PoStKind::Window, false),
            2 => (PoStKind::Window, true),
            _ => return None,
        };
        Some(Self {
            kind,
            sector_size,
            v1_2,
        })
    }

    /// Its numeric id.
    pub fn id(&self) -> u64 {
        let size = SECTOR_SIZES
            .iter()
            .position(|&(size, _)| size == self.sector_size)
            .expect("registered size") as u64;
        let group = match (self.kind, self.v1_2) {
            (PoStKind::Winning, _) => 0,
            (PoStKind::Window, false) => 1,
            (PoStKind::Window, true) => 2,
        };
        5 * group + size
    }

    /// Parses a name such as `StackedDrgWindow32GiBV1_2`, or Go's for the
    /// same type, `StackedDrgWindow32GiBV1_1` (filecoin-proofs has no
    /// WindowPoSt V1_1, so the name means nothing else).
    pub fn from_name(name: &str) -> Option<Self> {
        let go_window = name
            .strip_prefix("StackedDrgWindow")
            .and_then(|rest| rest.strip_suffix("V1_1"));
        let name = match go_window {
            Some(size) => format!("StackedDrgWindow{size}V1_2"),
            None => name.to_owned(),
        };
        (0..15)
            .filter_map(Self::from_id)
            .find(|t| t.to_string() == name)
    }

    /// The current proof type of `kind` for a sector size (WindowPoSt V1_2).
    pub fn current(kind: PoStKind, sector_size: u64) -> Option<Self> {
        SECTOR_SIZES
            .iter()
            .any(|&(size, _)| size == sector_size)
            .then_some(Self {
                kind,
                sector_size,
                v1_2: kind == PoStKind::Window,
            })
    }

    /// The configuration filecoin-proofs-api proves it with.
    pub fn config(&self) -> PoStConfig {
        let (typ, challenge_count, sector_count) = match self.kind {
            PoStKind::Winning => (
                PoStType::Winning,
                WINNING_POST_CHALLENGE_COUNT,
                WINNING_POST_SECTOR_COUNT,
            ),
            PoStKind::Window => (
                PoStType::Window,
                WINDOW_POST_CHALLENGE_COUNT,
                *WINDOW_POST_SECTOR_COUNT
                    .read()
                    .expect("WINDOW_POST_SECTOR_COUNT lock")
                    .get(&self.sector_size)
                    .expect("registered size"),
            ),
        };
        PoStConfig {
            sector_size: SectorSize(self.sector_size),
            challenge_count,
            sector_count,
            typ,
            priority: true,
            api_version: match self.v1_2 {
                true => ApiVersion::V1_2_0,
                false => ApiVersion::V1_0_0,
            },
        }
    }

    /// Sectors per partition (WindowPoSt) or per proof (WinningPoSt, 1).
    pub fn sectors_per_partition(&self) -> usize {
        self.config().sector_count
    }

    /// Partitions of a WindowPoSt over `sectors` sectors (1 for WinningPoSt).
    pub fn partitions_for(&self, sectors: usize) -> usize {
        match self.kind {
            PoStKind::Winning => 1,
            PoStKind::Window => sectors.div_ceil(self.sectors_per_partition()).max(1),
        }
    }

    /// Its circuit.
    pub fn circuit(&self) -> Result<Box<dyn AnyCircuit>, C2Error> {
        with_shape!(self.sector_size, erased, self)
    }
}

fn erased<Tree: 'static + MerkleTreeTrait>(
    proof_type: &PoStProofType,
) -> Result<Box<dyn AnyCircuit>, C2Error> {
    Ok(Box::new(circuit_of::<Tree>(proof_type)?))
}

fn circuit_of<Tree: 'static + MerkleTreeTrait>(
    proof_type: &PoStProofType,
) -> Result<CompoundCircuit<PoStScheme<Tree>>, C2Error> {
    Ok(CompoundCircuit::new(public_params::<Tree>(proof_type)?))
}

/// The public parameters of `proof_type` (sector size, sectors and
/// challenges per partition), as filecoin-proofs sets them up.
pub fn public_params<Tree: 'static + MerkleTreeTrait>(
    proof_type: &PoStProofType,
) -> Result<fallback::PublicParams, C2Error> {
    let config = proof_type.config();
    let setup = match proof_type.kind {
        PoStKind::Winning => winning_post_setup_params(&config)
            .map_err(C2Error::filecoin("WinningPoSt setup parameters"))?,
        PoStKind::Window => window_post_setup_params(&config),
    };
    FallbackPoSt::<Tree>::setup(&setup).map_err(C2Error::filecoin("PoSt public parameters"))
}

impl fmt::Display for PoStProofType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let size = size_name(self.sector_size);
        let (kind, version) = match (self.kind, self.v1_2) {
            (PoStKind::Winning, _) => ("Winning", "V1"),
            (PoStKind::Window, false) => ("Window", "V1"),
            (PoStKind::Window, true) => ("Window", "V1_2"),
        };
        write!(f, "StackedDrg{kind}{size}{version}")
    }
}

/// A PoSt to prove: the sectors' vanilla proofs and the challenge's public
/// values.
#[derive(Debug, Clone)]
pub struct PoStInput {
    /// The proof type.
    pub proof_type: PoStProofType,
    /// The challenge randomness (32 bytes, a field element).
    pub randomness: [u8; 32],
    /// The prover id (from the miner actor id, see
    /// [`crate::c2::prover_id_of_miner`]).
    pub prover_id: [u8; 32],
    /// One vanilla proof per sector, in the order the challenges were
    /// generated for (sorted by sector number, as lotus does).
    pub vanilla_proofs: Vec<VanillaBytes>,
    /// WindowPoSt: prove only this partition, whose sectors
    /// `vanilla_proofs` are (what Curio asks for); `None`: every partition.
    pub partition: Option<usize>,
}

impl PoStInput {
    /// Number of partitions proven.
    pub fn num_partitions(&self) -> usize {
        match self.partition {
            Some(_) => 1,
            None => self.proof_type.partitions_for(self.vanilla_proofs.len()),
        }
    }

    /// How logs name it.
    pub fn label(&self) -> String {
        let first = self
            .vanilla_proofs
            .first()
            .map(|v| v.source.display().to_string())
            .unwrap_or_default();
        match (self.partition, self.vanilla_proofs.len()) {
            (Some(k), n) => format!(
                "{} partition {k} ({n} sector(s), {first}…)",
                self.proof_type
            ),
            (None, 1) => format!("{} of {first}", self.proof_type),
            (None, n) => format!("{} of {n} sectors ({first}…)", self.proof_type),
        }
    }
}

/// The most sectors a V1 WindowPoSt partition may have before it in its
/// deadline: its public inputs list them (stand-ins), so a partition index
/// from a request is bounded before they are allocated. 2^20 is 446
/// partitions of 32 GiB sectors, 32 PiB in one deadline, far beyond any
/// storage provider's, and 40 MiB of stand-ins.
const MAX_SECTORS_BEFORE_PARTITION: usize = 1 << 20;

/// A PoSt input's decoded vanilla proofs ([`PoStJob::sector_proofs`]).
struct SectorProofs<Tree: MerkleTreeTrait> {
    /// In the order of their sector numbers.
    proofs: Vec<FallbackPoStSectorProof<Tree>>,
    /// The index of each among the input's vanilla proofs.
    inputs: Vec<usize>,
}

/// A PoSt input as an engine job of the sector shape `Tree`.
pub struct PoStJob<'a, Tree> {
    input: &'a PoStInput,
    config: PoStConfig,
    tree: PhantomData<fn() -> Tree>,
}

impl<'a, Tree: 'static + MerkleTreeTrait> PoStJob<'a, Tree> {
    /// The job of `input`.
    pub fn new(input: &'a PoStInput) -> Self {
        Self {
            input,
            config: input.proof_type.config(),
            tree: PhantomData,
        }
    }

    /// The decoded vanilla proofs in the order of their sector numbers,
    /// each with its index among the input's. The chain and
    /// `verify_window_post` list a partition's sectors in that order, and
    /// the proof is made over the list as given, so inputs in another
    /// order (file names sorted as text: `…-10` before `…-9`) would give a
    /// proof the chain refuses; two proofs of one sector are refused.
    fn sector_proofs(&self) -> Result<SectorProofs<Tree>, C2Error> {
        let name = self.input.proof_type.to_string();
        if self.input.vanilla_proofs.is_empty() {
            return Err(C2Error::VanillaProofs {
                what: "no vanilla proof was given".into(),
            });
        }
        let mut decoded: Vec<(usize, FallbackPoStSectorProof<Tree>)> = self
            .input
            .vanilla_proofs
            .iter()
            .map(|v| v.decode(&name))
            .enumerate()
            .map(|(i, proof)| proof.map(|proof| (i, proof)))
            .collect::<Result<_, _>>()?;
        decoded.sort_by_key(|(_, proof)| u64::from(proof.sector_id));
        if let Some(pair) = decoded
            .windows(2)
            .find(|pair| pair[0].1.sector_id == pair[1].1.sector_id)
        {
            let source = |i: usize| self.input.vanilla_proofs[i].source.display().to_string();
            return Err(C2Error::VanillaProofs {
                what: format!(
                    "{} and {} are both of sector {}",
                    source(pair[0].0),
                    source(pair[1].0),
                    u64::from(pair[0].1.sector_id)
                ),
            });
        }
        for (i, proof) in &decoded {
            let source = self.input.vanilla_proofs[*i].source.display();
            let sector = u64::from(proof.sector_id);
            self.check_shape(proof)
                .map_err(|what| C2Error::VanillaProofs {
                    what: format!("{source} (sector {sector}): {what}"),
                })?;
        }
        let (inputs, proofs): (Vec<usize>, Vec<_>) = decoded.into_iter().unzip();
        Ok(SectorProofs { proofs, inputs })
    }

    /// Refuses a sector's vanilla proof that is not one sector's
    /// `challenge_count` inclusion proofs whose root is the `comm_r_last`
    /// beside them. storage-proofs' verifier indexes such a proof without
    /// looking (it panics where there is none), takes the root of the first
    /// inclusion proof for `comm_r_last` where the circuit takes the field
    /// (a SNARK that does not verify), or says only that some proof of the
    /// partition is wrong.
    fn check_shape(&self, proof: &FallbackPoStSectorProof<Tree>) -> Result<(), String> {
        let [sector] = proof.vanilla_proof.sectors.as_slice() else {
            return Err(format!(
                "it holds {} sector proofs where a PoSt vanilla proof holds one",
                proof.vanilla_proof.sectors.len()
            ));
        };
        let (found, wanted) = (sector.inclusion_proofs.len(), self.config.challenge_count);
        if found != wanted {
            let kind = match self.input.proof_type.kind {
                PoStKind::Winning => PoStKind::Window,
                PoStKind::Window => PoStKind::Winning,
            };
            let other = PoStProofType {
                kind,
                ..self.input.proof_type
            };
            let guess = if other.config().challenge_count == found {
                format!(" (a {kind:?}PoSt vanilla proof?)")
            } else {
                String::new()
            };
            return Err(format!(
                "it holds {found} inclusion proofs where a {} vanilla proof holds {wanted}{guess}",
                self.input.proof_type
            ));
        }
        if sector.inclusion_proofs[0].root() != sector.comm_r_last {
            return Err("its comm_r_last is not the root of its inclusion proofs".into());
        }
        Ok(())
    }

    fn safe<D: Domain>(bytes: &[u8; 32], name: &str) -> Result<D, C2Error> {
        as_safe_commitment(bytes, name).map_err(|e| C2Error::VanillaProofs {
            what: format!("{name}: {e}"),
        })
    }

    /// The vanilla proofs `proofs` refused by storage-proofs' check
    /// (`error`): which sector's is wrong and why, where that can be told.
    fn refused(&self, error: anyhow::Error, proofs: &SectorProofs<Tree>) -> C2Error {
        let sources: Vec<String> = proofs
            .inputs
            .iter()
            .map(|&i| self.input.vanilla_proofs[i].source.display().to_string())
            .collect();
        let what = post_fault::first_fault(&self.config, self.input, &proofs.proofs, &sources)
            .unwrap_or_else(|| format!("{error:#}"));
        C2Error::VanillaProofs { what }
    }

    /// The replicas the whole proof is verified against, from the vanilla
    /// proofs (which carry each sector's number and comm_r).
    fn replicas(&self) -> Result<Vec<(u64, PublicReplicaInfo)>, C2Error> {
        self.sector_proofs()?
            .proofs
            .iter()
            .map(|p| {
                let mut comm_r = [0u8; 32];
                comm_r.copy_from_slice(p.comm_r.as_ref());
                let info = PublicReplicaInfo::new(comm_r)
                    .map_err(C2Error::filecoin("public replica info"))?;
                Ok((u64::from(p.sector_id), info))
            })
            .collect()
    }
}

/// Proves `inputs`, all of one proof type, on its circuit (loaded by
/// `PoStProofType::circuit`'s `load`); see [`compound::prove`].
pub fn prove(
    circuit: &LoadedCircuit,
    provers: Option<&[DeviceProver<'_>]>,
    inputs: &[PoStInput],
    engine: &EngineOptions,
    observer: Observer<'_>,
    done: &mut dyn FnMut(usize, &KindResult),
) -> Result<KindRun, C2Error> {
    let first = compound::first_of_one_type(inputs, |i| i.proof_type, PoStInput::label)?;
    with_shape!(
        first.proof_type.sector_size,
        prove_shape,
        circuit,
        provers,
        inputs,
        engine,
        observer,
        done
    )
}

fn prove_shape<Tree: 'static + MerkleTreeTrait>(
    circuit: &LoadedCircuit,
    provers: Option<&[DeviceProver<'_>]>,
    inputs: &[PoStInput],
    engine: &EngineOptions,
    observer: Observer<'_>,
    done: &mut dyn FnMut(usize, &KindResult),
) -> Result<KindRun, C2Error> {
    let jobs: Vec<PoStJob<'_, Tree>> = inputs.iter().map(PoStJob::new).collect();
    compound::prove(circuit, provers, &jobs, engine, observer, done)
}

impl<Tree: 'static + MerkleTreeTrait> ProofKind for PoStJob<'_, Tree> {
    type Scheme = PoStScheme<Tree>;

    fn label(&self) -> String {
        self.input.label()
    }

    fn partitions(&self) -> usize {
        self.input.num_partitions()
    }

    fn open(&self) -> Result<Statement<Self::Scheme>, C2Error> {
        let proofs = self.sector_proofs()?;
        let circuit = circuit_of::<Tree>(&self.input.proof_type)?;
        let params: fallback::PublicParams = circuit.params;
        let sectors: Vec<_> = proofs
            .proofs
            .iter()
            .map(|p| PublicSector {
                id: p.sector_id,
                comm_r: p.comm_r,
            })
            .collect();
        let mut inputs = fallback::PublicInputs {
            randomness: Self::safe(&self.input.randomness, "randomness")?,
            prover_id: Self::safe(&self.input.prover_id, "prover id")?,
            sectors,
            k: None,
        };
        let malformed = || {
            let sources = VanillaBytes::sources(&self.input.vanilla_proofs);
            format!("PoSt vanilla proofs ({sources})")
        };
        let partitions = match self.input.partition {
            None => {
                let count = self.partitions();
                let partitions = C2Error::unless_malformed(malformed, || {
                    partition_vanilla_proofs(&self.config, &params, &inputs, count, &proofs.proofs)
                        .map_err(|e| self.refused(e, &proofs))
                })?;
                if self.input.proof_type.kind == PoStKind::Winning {
                    // The circuit checks the sector once per challenge, and
                    // its public inputs list it as often (as
                    // `verify_winning_post` does).
                    inputs.sectors = (0..params.sector_count)
                        .flat_map(|_| inputs.sectors.iter().cloned())
                        .collect();
                }
                partitions.into_iter().enumerate().collect()
            }
            Some(k) => {
                let per_partition = params.sector_count;
                if inputs.sectors.len() > per_partition {
                    return Err(C2Error::VanillaProofs {
                        what: format!(
                            "{} sectors given for one partition, which holds {per_partition}",
                            inputs.sectors.len()
                        ),
                    });
                }
                inputs.k = Some(k);
                let proof = C2Error::unless_malformed(malformed, || {
                    single_partition_vanilla_proofs(&self.config, &params, &inputs, &proofs.proofs)
                        .map_err(|e| self.refused(e, &proofs))
                })?;
                if params.api_version >= ApiVersion::V1_2_0 {
                    // A sector's challenges do not depend on its place in
                    // the whole list: partition k is proven as the first
                    // of a list of its own sectors, as filecoin-proofs'
                    // `generate_single_window_post_with_vanilla` does.
                    vec![(0, proof)]
                } else {
                    // They do: partition k reads the k-th chunk of the
                    // list, so the sectors before it are stood in for.
                    let before = k
                        .checked_mul(per_partition)
                        .filter(|&before| before <= MAX_SECTORS_BEFORE_PARTITION)
                        .ok_or_else(|| C2Error::VanillaProofs {
                            what: format!("partition {k} of a {} is beyond any deadline's (at most {MAX_SECTORS_BEFORE_PARTITION} sectors before it)", self.input.proof_type),
                        })?;
                    let padding = vec![inputs.sectors[0].clone(); before];
                    inputs.sectors.splice(0..0, padding);
                    vec![(k, proof)]
                }
            }
        };
        Ok(Statement {
            inputs,
            params,
            partitions,
        })
    }

    fn verify(&self, proof: &[u8]) -> Result<Option<Duration>, C2Error> {
        let start = Instant::now();
        let (randomness, prover_id) = (&self.input.randomness, self.input.prover_id);
        let replicas = self.replicas()?;
        let (verifier, valid) = match (self.input.proof_type.kind, self.input.partition) {
            // No filecoin-proofs verifier takes one partition of a WindowPoSt.
            (PoStKind::Window, Some(_)) => return Ok(None),
            (PoStKind::Window, None) => {
                let replicas: BTreeMap<_, _> =
                    replicas.into_iter().map(|(id, r)| (id.into(), r)).collect();
                let valid = verify_window_post::<Tree>(
                    &self.config,
                    randomness,
                    &replicas,
                    prover_id,
                    proof,
                )
                .map_err(C2Error::filecoin("verify_window_post"))?;
                ("verify_window_post", valid)
            }
            (PoStKind::Winning, _) => {
                let replicas: Vec<_> = replicas.into_iter().map(|(id, r)| (id.into(), r)).collect();
                let valid = verify_winning_post::<Tree>(
                    &self.config,
                    randomness,
                    &replicas,
                    prover_id,
                    proof,
                )
                .map_err(C2Error::filecoin("verify_winning_post"))?;
                ("verify_winning_post", valid)
            }
        };
        match valid {
            true => Ok(Some(start.elapsed())),
            false => Err(C2Error::Rejected { verifier }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_ids_follow_filecoin_proofs_api() {
        let window = PoStProofType::from_name("StackedDrgWindow32GiBV1_2").unwrap();
        assert_eq!(window.id(), 13);
        assert_eq!(window.kind, PoStKind::Window);
        // Go (go-state-types, Lotus, Curio) names ids 10–14 V1_1.
        assert_eq!(
            PoStProofType::from_name("StackedDrgWindow32GiBV1_1"),
            Some(window)
        );
        assert_eq!(PoStProofType::from_name("StackedDrgWinning32GiBV1_1"), None);
        assert_eq!(
            PoStProofType::from_id(3).unwrap().to_string(),
            "StackedDrgWinning32GiBV1"
        );
        assert_eq!(
            PoStProofType::from_id(5).unwrap().to_string(),
            "StackedDrgWindow2KiBV1"
        );
        for id in 0..15 {
            assert_eq!(PoStProofType::from_id(id).unwrap().id(), id);
        }
        assert_eq!(PoStProofType::from_id(15), None);
        assert_eq!(window.sectors_per_partition(), 2349);
        assert_eq!(window.partitions_for(2350), 2);
        let winning = PoStProofType::current(PoStKind::Winning, 2048).unwrap();
        assert_eq!(winning.to_string(), "StackedDrgWinning2KiBV1");
        assert_eq!(winning.config().challenge_count, 66);
    }
}
