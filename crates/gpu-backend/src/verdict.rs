//! A device's G2 MSMs known to be wrong, remembered from one open to the
//! next.
//!
//! On some machines every build of the kernels computes wrong G2 sums
//! while their G1 sums and NTTs are right (`docs/benchmarks.md`). Opening
//! such a device tries the cached build, then a fresh compilation, then
//! the driver's compiler, and keeps the device without its G2 MSMs. Each
//! compilation takes seconds to minutes, and on that machine they give
//! the same answer every time: a `c2` run or a daemon start would pay them
//! at each open. So the verdict is kept in the compiled-kernel cache, for
//! this device (its index, name and stable identifier) and this kernel
//! source, and the next
//! open whose cached build is wrong in its G2 MSM alone believes it
//! instead of compiling again. It holds for a day, so that a new driver or
//! compiler gets its chance; a build that passes the whole self-test
//! clears it.

use std::path::PathBuf;
use std::time::{Duration, SystemTime};

use backend_api::plugin::DeviceDescription;
use tracing::warn;

use crate::cache;

/// How long a verdict is believed.
const BELIEVED_FOR: Duration = Duration::from_secs(24 * 60 * 60);

/// Where one device's verdict lives (nowhere without a cache directory).
#[derive(Debug, Clone)]
pub struct G2Verdict {
    path: Option<PathBuf>,
}

impl G2Verdict {
    /// The verdict of device `index`, as `device` describes it (its name
    /// and stable identifier), of API `api`, in the cache directory `dir`.
    pub fn of_device(
        dir: Option<PathBuf>,
        api: &str,
        index: u32,
        device: &DeviceDescription,
    ) -> Self {
        let id: String = device.id.iter().map(|byte| format!("{byte:02x}")).collect();
        let key = format!("{api}\ndevice {index}\n{}\n{id}", device.name);
        let path = dir.map(|dir| dir.join(cache::file_name(&[&key], "g2-wrong")));
        Self { path }
    }

    /// A verdict kept nowhere: never believed.
    pub fn nowhere() -> Self {
        Self { path: None }
    }

    /// Why the device's G2 MSMs were found wrong by every build, if that
    /// was found less than a day ago.
    pub fn believed(&self) -> Option<String> {
        let path = self.path.as_ref()?;
        let written = std::fs::metadata(path).and_then(|m| m.modified()).ok()?;
        // A time in the future (a clock set back) is not believed.
        let age = SystemTime::now().duration_since(written).ok()?;
        if age > BELIEVED_FOR {
            return None;
        }
        cache::read(path).map(|reason| String::from_utf8_lossy(&reason).into_owned())
    }

    /// Records that every build got the device's G2 MSMs wrong, and why.
    pub fn remember(&self, reason: &str) {
        if let Some(path) = &self.path {
            cache::write(path, reason.as_bytes());
        }
    }

    /// Forgets the verdict: a build passed the whole self-test.
    pub fn forget(&self) {
        let Some(path) = &self.path else { return };
        match std::fs::remove_file(path) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(error) => {
                warn!(path = %path.display(), %error, "could not remove a stale G2 verdict")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_verdict_is_kept_per_device_until_forgotten_or_a_day_old() {
        let dir = tempfile::tempdir().unwrap();
        let of = |index, name: &str, id| {
            let device = DeviceDescription {
                name: name.into(),
                id: [id; 16],
                ..DeviceDescription::default()
            };
            G2Verdict::of_device(Some(dir.path().into()), "cuda", index, &device)
        };
        let (first, second) = (of(0, "H200", 1), of(1, "H200", 2));
        assert_eq!(first.believed(), None);
        first.remember("G2 MSM wrong");
        assert_eq!(first.believed().as_deref(), Some("G2 MSM wrong"));
        assert_eq!(second.believed(), None, "another device");
        assert_eq!(
            of(0, "A100", 1).believed(),
            None,
            "another model in its place"
        );
        assert_eq!(
            of(0, "H200", 3).believed(),
            None,
            "another H200 in its place"
        );

        let old = SystemTime::now() - BELIEVED_FOR - Duration::from_secs(60);
        let file = std::fs::File::options()
            .write(true)
            .open(first.path.as_ref().unwrap())
            .unwrap();
        file.set_modified(old).unwrap();
        assert_eq!(first.believed(), None, "a day old");
        file.set_modified(SystemTime::now() + Duration::from_secs(3600))
            .unwrap();
        assert_eq!(first.believed(), None, "written in the future");

        first.remember("G2 MSM wrong again");
        first.forget();
        assert_eq!(first.believed(), None);
        first.forget();
        let nowhere = G2Verdict::nowhere();
        nowhere.remember("kept nowhere");
        assert_eq!(nowhere.believed(), None);
    }
}
