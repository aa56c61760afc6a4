//! Helpers for tests, benchmarks and the demo, kept out of the prover's
//! library surface.
//!
//! - [`test_sector`]: a sector sealed from scratch with filecoin-proofs,
//!   whose commit-phase-1 output any C2 prover must accept;
//! - [`vanilla`]: the PoSt and SnapDeals vanilla proofs of such sectors,
//!   and [`kinds`]: one input of each of those kinds;
//! - [`baseline`]: filecoin-proofs' own provers on the same inputs, what
//!   benchmarks compare against;
//! - [`synthesis_compare`]: bellperson's enforce-time synthesis against the
//!   PCE path on the same partitions, of a sealed sector or of a
//!   [`synthetic_c1`] output (any sector size, no sector);
//! - [`witness_compare`]: storage-proofs' circuits against this prover's
//!   copies of them, value for value, on [`synthetic_post`] and
//!   [`synthetic_update`] statements of any sector size;
//! - [`sparse_sector`]: valid PoSt vanilla proofs of sectors of any size
//!   (32 GiB included) with no sector behind them.

pub mod baseline;
pub mod kinds;
pub mod sparse_sector;
pub mod synthesis_compare;
pub mod synthetic_c1;
pub mod synthetic_post;
pub mod synthetic_update;
pub mod test_sector;
pub mod vanilla;
pub mod witness_compare;
