//! SnapDeals (empty sector update): partition vanilla proofs in, the proof
//! the chain takes out.
//!
//! The circuit is storage-proofs-update's `EmptySectorUpdateCircuit`, one
//! per partition (16 at 32 GiB and 64 GiB). The input is what
//! filecoin-proofs-api's `generate_partition_proofs` returned, one vanilla
//! proof per partition, with the three commitments of the update; the
//! output is what `generate_empty_sector_update_proof_with_vanilla`
//! returns, checked with `verify_empty_sector_update_proof` before it is
//! returned. The vanilla proofs are verified before any proving.

use std::fmt;
use std::marker::PhantomData;
use std::time::{Duration, Instant};

use filecoin_hashers::Domain;
use filecoin_proofs::{
    verify_empty_sector_update_proof, with_shape, PoRepConfig, SectorUpdateConfig,
};
use pce_core::{synthesize_witness, Witness};
use proving_engine::{DeviceProver, EngineOptions, LoadedCircuit, Observer};
use storage_proofs_core::api_version::ApiVersion;
use storage_proofs_core::merkle::MerkleTreeTrait;
use storage_proofs_core::proof::ProofScheme;
use storage_proofs_update::constants::{TreeDDomain, TreeRDomain, TreeRHasher};
use storage_proofs_update::{
    EmptySectorUpdate, EmptySectorUpdateCircuit, EmptySectorUpdateCompound, PartitionProof,
    PublicInputs, PublicParams,
};

use crate::compound::{
    self, AnyCircuit, CompoundCircuit, KindResult, KindRun, ProofKind, Scheme, Statement,
};
use crate::proof_type::{size_name, SECTOR_SIZES};
use crate::update_witness;
use crate::vanilla::VanillaBytes;
use crate::C2Error;

/// The empty sector update compound proof of a sector shape.
pub struct UpdateScheme<Tree>(PhantomData<fn() -> Tree>);

impl<Tree: 'static + MerkleTreeTrait<Hasher = TreeRHasher>> Scheme for UpdateScheme<Tree> {
    type Vanilla = EmptySectorUpdate<Tree>;
    type Circuit = EmptySectorUpdateCircuit<Tree>;
    type Compound = EmptySectorUpdateCompound<Tree>;

    /// [`update_witness::witness`], our copy of the circuit with native
    /// SHA-256 and Poseidon values, unless
    /// [`crate::witness::CIRCUIT_WITNESS_ENV`] asks for storage-proofs' own
    /// circuit.
    fn witness(statement: &Statement<Self>, i: usize) -> Result<Witness, C2Error> {
        let circuit = statement.circuit(i)?;
        if crate::witness::storage_proofs_circuit() {
            synthesize_witness(circuit)
        } else {
            update_witness::witness(circuit)
        }
        .map_err(|source| C2Error::Synthesis {
            partition: i,
            source,
        })
    }
}

/// A registered update proof type (filecoin-proofs-api's
/// `RegisteredUpdateProof`, `StackedDrg<size>V1`, ids 0–4 as Lotus and
/// Curio number them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UpdateProofType {
    /// Sector size in bytes.
    pub sector_size: u64,
}

impl UpdateProofType {
    /// The proof type of a numeric `RegisteredUpdateProof` id, if it is one.
    pub fn from_id(id: u64) -> Option<Self> {
        let sector_size = SECTOR_SIZES.get(usize::try_from(id).ok()?)?.0;
        Some(Self { sector_size })
    }

    /// Its numeric id.
    /// Only registered sizes have one (this panics for another).
    pub fn id(&self) -> u64 {
        self.registered_id().expect("registered size")
    }

    fn registered_id(&self) -> Option<u64> {
        SECTOR_SIZES
            .iter()
            .position(|&(size, _)| size == self.sector_size)
            .map(|id| id as u64)
    }

    /// The update proof of a sector size, if it is a registered size.
    pub fn of_size(sector_size: u64) -> Option<Self> {
        SECTOR_SIZES
            .iter()
            .any(|&(size, _)| size == sector_size)
            .then_some(Self { sector_size })
    }

    /// Parses a name such as `StackedDrg32GiBV1` (the update proof's own
    /// name, which is also that of a V1 seal proof type).
    pub fn from_name(name: &str) -> Option<Self> {
        (0..5)
            .filter_map(Self::from_id)
            .find(|t| t.to_string() == name)
    }

    /// The PoRep configuration filecoin-proofs-api proves updates with
    /// (`RegisteredUpdateProof::as_v1_config`: porep id = id ‖ nonce 0).
    /// An update reads only its sector size (circuit, parameters and
    /// verifier alike), so a test size with no registered id (16 KiB, of
    /// the 32 GiB tree shape) gets the PoRep id 0.
    pub fn porep_config(&self) -> PoRepConfig {
        let mut porep_id = [0u8; 32];
        let id = self.registered_id().unwrap_or(0);
        porep_id[..8].copy_from_slice(&id.to_le_bytes());
        PoRepConfig::new_groth16(self.sector_size, porep_id, ApiVersion::V1_1_0)
    }

    /// Number of partitions (and of vanilla proofs).
    pub fn partitions(&self) -> usize {
        usize::from(SectorUpdateConfig::from_porep_config(&self.porep_config()).update_partitions)
    }

    /// Its circuit.
    pub fn circuit(&self) -> Box<dyn AnyCircuit> {
        with_shape!(self.sector_size, erased, self)
    }
}

fn erased<Tree: 'static + MerkleTreeTrait<Hasher = TreeRHasher>>(
    proof_type: &UpdateProofType,
) -> Box<dyn AnyCircuit> {
    Box::new(circuit_of::<Tree>(proof_type))
}

fn circuit_of<Tree: 'static + MerkleTreeTrait<Hasher = TreeRHasher>>(
    proof_type: &UpdateProofType,
) -> CompoundCircuit<UpdateScheme<Tree>> {
    CompoundCircuit::new(PublicParams::from_sector_size(proof_type.sector_size))
}

impl fmt::Display for UpdateProofType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "StackedDrg{}V1", size_name(self.sector_size))
    }
}

/// The public values of an update: 32-byte commitments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UpdateCommitments {
    /// The sector's replica commitment before the update.
    pub comm_r_old: [u8; 32],
    /// Its replica commitment after the update.
    pub comm_r_new: [u8; 32],
    /// The commitment of the new data.
    pub comm_d_new: [u8; 32],
}

/// A SnapDeals update to prove.
#[derive(Debug, Clone)]
pub struct UpdateInput {
    /// The proof type.
    pub proof_type: UpdateProofType,
    /// The commitments.
    pub commitments: UpdateCommitments,
    /// One vanilla proof per partition, in partition order.
    pub vanilla_proofs: Vec<VanillaBytes>,
}

impl UpdateInput {
    /// How logs name it.
    pub fn label(&self) -> String {
        let first = self
            .vanilla_proofs
            .first()
            .map(|v| v.source.display().to_string())
            .unwrap_or_default();
        format!("SnapDeals {} ({first}…)", self.proof_type)
    }

    /// Refuses an input without one vanilla proof per partition: checked
    /// where the input is made, before minutes of loading the circuit.
    pub fn check_count(&self) -> Result<(), C2Error> {
        let (expected, given) = (self.proof_type.partitions(), self.vanilla_proofs.len());
        if given != expected {
            return Err(C2Error::VanillaProofs {
                what: format!(
                    "{given} vanilla proof(s) given, {} has {expected} partition(s)",
                    self.proof_type
                ),
            });
        }
        Ok(())
    }
}

/// An update input as an engine job of the sector shape `Tree`.
pub struct UpdateJob<'a, Tree> {
    input: &'a UpdateInput,
    tree: PhantomData<fn() -> Tree>,
}

impl<'a, Tree> UpdateJob<'a, Tree> {
    /// The job of `input`.
    pub fn new(input: &'a UpdateInput) -> Self {
        Self {
            input,
            tree: PhantomData,
        }
    }
}

/// Proves `inputs`, all of one proof type, on its circuit (loaded by
/// `UpdateProofType::circuit`'s `load`); see [`compound::prove`].
pub fn prove(
    circuit: &LoadedCircuit,
    provers: Option<&[DeviceProver<'_>]>,
    inputs: &[UpdateInput],
    engine: &EngineOptions,
    observer: Observer<'_>,
    done: &mut dyn FnMut(usize, &KindResult),
) -> Result<KindRun, C2Error> {
    let first = compound::first_of_one_type(inputs, |i| i.proof_type, UpdateInput::label)?;
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

fn prove_shape<Tree: 'static + MerkleTreeTrait<Hasher = TreeRHasher>>(
    circuit: &LoadedCircuit,
    provers: Option<&[DeviceProver<'_>]>,
    inputs: &[UpdateInput],
    engine: &EngineOptions,
    observer: Observer<'_>,
    done: &mut dyn FnMut(usize, &KindResult),
) -> Result<KindRun, C2Error> {
    let jobs: Vec<UpdateJob<'_, Tree>> = inputs.iter().map(UpdateJob::new).collect();
    compound::prove(circuit, provers, &jobs, engine, observer, done)
}

fn commitment<D: Domain>(bytes: &[u8; 32], name: &str) -> Result<D, C2Error> {
    D::try_from_bytes(bytes).map_err(|e| C2Error::VanillaProofs {
        what: format!("{name} is not a field element: {e}"),
    })
}

impl<Tree: 'static + MerkleTreeTrait<Hasher = TreeRHasher>> ProofKind for UpdateJob<'_, Tree> {
    type Scheme = UpdateScheme<Tree>;

    fn label(&self) -> String {
        self.input.label()
    }

    fn partitions(&self) -> usize {
        self.input.proof_type.partitions()
    }

    fn open(&self) -> Result<Statement<Self::Scheme>, C2Error> {
        self.input.check_count()?;
        let expected = self.partitions();
        let name = self.input.proof_type.to_string();
        let proofs = self
            .input
            .vanilla_proofs
            .iter()
            .map(|v| v.decode::<PartitionProof<Tree>>(&name))
            .collect::<Result<Vec<_>, _>>()?;
        let config = SectorUpdateConfig::from_porep_config(&self.input.proof_type.porep_config());
        let c = &self.input.commitments;
        let inputs = PublicInputs {
            k: expected,
            comm_r_old: commitment::<TreeRDomain>(&c.comm_r_old, "comm_r_old")?,
            comm_d_new: commitment::<TreeDDomain>(&c.comm_d_new, "comm_d_new")?,
            comm_r_new: commitment::<TreeRDomain>(&c.comm_r_new, "comm_r_new")?,
            h: config.h,
        };
        let params = circuit_of::<Tree>(&self.input.proof_type).params;
        // Partition by partition (as `verify_all_partitions` does), to name
        // the one that does not verify.
        let verifies_as = |k: usize, proof: &PartitionProof<Tree>| {
            let source = || {
                let file = self.input.vanilla_proofs.get(k);
                let file = file.map_or(String::new(), |v| v.source.display().to_string());
                format!("SnapDeals vanilla proofs (partition {k}'s: {file})")
            };
            C2Error::unless_malformed(source, || {
                let inputs = EmptySectorUpdate::<Tree>::with_partition(inputs.clone(), Some(k));
                EmptySectorUpdate::<Tree>::verify(&params, &inputs, proof)
                    .map_err(C2Error::filecoin("verifying the vanilla proofs"))
            })
        };
        for (k, proof) in proofs.iter().enumerate() {
            if verifies_as(k, proof)? {
                continue;
            }
            let source = self.input.vanilla_proofs[k].source.display();
            // A partition's proof names no partition: files given in
            // another order (`p10` before `p2`) verify elsewhere.
            let elsewhere = (0..expected)
                .filter(|&j| j != k)
                .find(|&j| verifies_as(j, proof).unwrap_or(false));
            return Err(C2Error::VanillaProofs {
                what: match elsewhere {
                    Some(j) => format!(
                        "{source}, given as partition {k}, is the vanilla proof of partition {j}: give them in partition order"
                    ),
                    None => format!(
                        "{source} (partition {k}) does not verify against comm_r_old, comm_r_new and comm_d_new"
                    ),
                },
            });
        }
        Ok(Statement {
            inputs,
            params,
            partitions: proofs.into_iter().enumerate().collect(),
        })
    }

    fn verify(&self, proof: &[u8]) -> Result<Option<Duration>, C2Error> {
        let start = Instant::now();
        let c = &self.input.commitments;
        let valid = verify_empty_sector_update_proof::<Tree>(
            &self.input.proof_type.porep_config(),
            proof,
            c.comm_r_old,
            c.comm_r_new,
            c.comm_d_new,
        )
        .map_err(C2Error::filecoin("verify_empty_sector_update_proof"))?;
        match valid {
            true => Ok(Some(start.elapsed())),
            false => Err(C2Error::Rejected {
                verifier: "verify_empty_sector_update_proof",
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn update_proof_types_follow_filecoin_proofs_api() {
        let t = UpdateProofType::from_name("StackedDrg32GiBV1").unwrap();
        assert_eq!(t.id(), 3);
        assert_eq!(t.partitions(), 16);
        assert_eq!(UpdateProofType::from_id(0).unwrap().partitions(), 1);
        assert_eq!(UpdateProofType::from_id(5), None);
        assert_eq!(t.porep_config().porep_id[..8], 3u64.to_le_bytes());
    }
}
