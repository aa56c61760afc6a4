//! Loading a circuit: parameters of another circuit are refused as the
//! circuit is loaded, naming the file, not in every proof after minutes of
//! decoding.

mod common;

use bellpepper_core::{Circuit, ConstraintSystem, SynthesisError};
use blstrs::Scalar;
use ff::Field;
use groth16_prover::setup::generate_random_parameters;
use pce_core::PrecompiledCircuit;
use proving_engine::{EngineError, LoadedCircuit};
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;

use common::Squares;

/// `x · x = y`, y public: fewer constraints and inputs than [`Squares`].
struct Square;

impl Circuit<Scalar> for Square {
    fn synthesize<CS: ConstraintSystem<Scalar>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
        let x = cs.alloc(|| "x", || Ok(Scalar::ONE))?;
        let y = cs.alloc_input(|| "y", || Ok(Scalar::ONE))?;
        cs.enforce(|| "x * x = y", |lc| lc + x, |lc| lc + x, |lc| lc + y);
        Ok(())
    }
}

#[test]
fn parameters_of_another_circuit_are_refused_at_load() {
    let dir = tempfile::tempdir().unwrap();
    let other = PrecompiledCircuit::extract(Square).unwrap();
    let params = generate_random_parameters(&other, &mut ChaCha20Rng::seed_from_u64(1)).unwrap();
    let path = dir.path().join("other.params");
    params.write(std::fs::File::create(&path).unwrap()).unwrap();
    for resident in [false, true] {
        let squares = PrecompiledCircuit::extract(Squares { x: Scalar::ONE }).unwrap();
        let error = LoadedCircuit::load::<EngineError>("squares", || Ok(squares), &path, resident)
            .map(|_| ())
            .unwrap_err();
        assert!(
            matches!(error, EngineError::ParametersOfAnotherCircuit { .. }),
            "{error}"
        );
        let said = error.to_string();
        assert!(
            said.contains(&format!(
                "{} are not the parameters of circuit squares: query h has 3 points, the circuit needs 7",
                path.display()
            )),
            "{said}"
        );
    }
    // Its own parameters load.
    let own = PrecompiledCircuit::extract(Square).unwrap();
    LoadedCircuit::load::<EngineError>("square", || Ok(own), &path, true).unwrap();
}
