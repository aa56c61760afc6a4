//! The memory limit of the process's control group: a container's.
//!
//! Inside a container `/proc/meminfo` shows the host's memory, while the
//! kernel ends the container's processes once they pass its limit. A
//! default budget taken from the machine alone would admit partitions for
//! memory the container cannot have, and the out-of-memory killer would end
//! the whole run. So the default budget starts from the smaller of the
//! two.
//!
//! `/proc/self/cgroup` names the process's group in each hierarchy: in
//! cgroup v2 the one line `0::/path`, whose limit is `memory.max` under
//! `/sys/fs/cgroup/path` (`max` when there is none); in v1 the line whose
//! controllers include `memory`, whose limit is `memory.limit_in_bytes`
//! under `/sys/fs/cgroup/memory/path` (a huge number when there is none).
//! A group's ancestors limit it too, and a container without a cgroup
//! namespace sees its own group as the root of the mount while the path
//! still names the host's (`/docker/<id>/sub` for the mount's `sub`), so
//! the walk starts from the longest tail of the path that exists under the
//! mount, and every directory from there up to the mount's root counts.

use std::path::Path;

/// Limits at or above this are "no limit" (v1 writes 2^63 less a page).
const UNLIMITED: u64 = 1 << 62;

/// The tightest memory limit on this process's control groups, if any.
pub fn memory_limit() -> Option<u64> {
    let groups = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    limit_under(Path::new("/sys/fs/cgroup"), &groups)
}

/// The tightest limit that `groups` (the text of `/proc/self/cgroup`) puts
/// on memory, with the hierarchies mounted under `root`.
fn limit_under(root: &Path, groups: &str) -> Option<u64> {
    groups
        .lines()
        .filter_map(|line| {
            let mut fields = line.splitn(3, ':');
            let (_, controllers, path) = (fields.next()?, fields.next()?, fields.next()?);
            let relative = path.trim_start_matches('/');
            if controllers.is_empty() {
                tightest(root, relative, "memory.max")
            } else if controllers.split(',').any(|c| c == "memory") {
                tightest(&root.join("memory"), relative, "memory.limit_in_bytes")
            } else {
                None
            }
        })
        .min()
}

/// The smallest limit in `file` of the directories from the longest tail
/// of `relative` that exists under `mount` up to `mount`.
fn tightest(mount: &Path, relative: &str, file: &str) -> Option<u64> {
    let parts: Vec<&str> = relative.split('/').filter(|p| !p.is_empty()).collect();
    let start = (0..parts.len())
        .map(|skip| mount.join(parts[skip..].join("/")))
        .find(|dir| dir.is_dir())
        .unwrap_or_else(|| mount.to_owned());
    start
        .ancestors()
        .take_while(|dir| dir.starts_with(mount))
        .filter_map(|dir| std::fs::read_to_string(dir.join(file)).ok())
        .filter_map(|text| text.trim().parse::<u64>().ok())
        .filter(|&limit| limit < UNLIMITED)
        .min()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    #[test]
    fn the_tightest_limit_of_the_group_and_its_ancestors_counts() {
        let root = tempfile::tempdir().unwrap();
        let root = root.path();
        // cgroup v2: a limit on the parent, none on the group itself.
        write(&root.join("memory.max"), "max\n");
        write(&root.join("sealing/memory.max"), "17179869184\n");
        write(&root.join("sealing/prover/memory.max"), "max\n");
        assert_eq!(limit_under(root, "0::/sealing/prover\n"), Some(16 << 30));
        // A container's own group at the mount's root, its path the host's.
        write(&root.join("memory.max"), "8589934592\n");
        assert_eq!(limit_under(root, "0::/docker/0123abcd\n"), Some(8 << 30));
        // A group inside that container, seen at the mount as `sealing`.
        assert_eq!(
            limit_under(root, "0::/docker/0123abcd/sealing\n"),
            Some(8 << 30)
        );
        write(&root.join("sealing/memory.max"), "4294967296\n");
        assert_eq!(
            limit_under(root, "0::/docker/0123abcd/sealing\n"),
            Some(4 << 30)
        );

        // cgroup v1: the memory hierarchy's line, "no limit" as v1 says it.
        let v1 = "4:memory:/process_api/x\n1:cpu,cpuacct:/\n0::/\n";
        let v1_root = tempfile::tempdir().unwrap();
        let v1_root = v1_root.path();
        write(
            &v1_root.join("memory/memory.limit_in_bytes"),
            "9223372036854771712\n",
        );
        assert_eq!(limit_under(v1_root, v1), None);
        write(
            &v1_root.join("memory/process_api/x/memory.limit_in_bytes"),
            "4294967296\n",
        );
        assert_eq!(limit_under(v1_root, v1), Some(4 << 30));
        // Unreadable or absent: no limit known.
        assert_eq!(limit_under(v1_root, "garbage"), None);
    }
}
