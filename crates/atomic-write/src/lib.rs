//! Writing a file so that it appears complete or not at all.
//!
//! Proofs, recorded circuits and test parameters are expensive to make and
//! are read by other processes (filecoin-proofs reads the same parameter
//! cache). A reader must never see a truncated file under its final name,
//! whatever happens to the writer: a crash, a full disk, a kill. Every such
//! file is therefore written under a temporary name in the same directory,
//! synced, renamed into place, and the directory synced so that the rename
//! itself survives a power loss. An abandoned temporary file is removed;
//! one left by a killed writer (no destructor runs on SIGKILL) is removed
//! by the next writer of the same path: at 32 GiB a PCE is 4 GiB, too much
//! to leak on every kill. A writer locks its temporary file before writing
//! to it and holds the lock until it is renamed, and a lock dies with its
//! process, so a temporary file no one holds is an orphan once written to,
//! or once a minute old, whatever process or container wrote it (two
//! containers sharing a parameter cache see different process ids). Where
//! the file system has no locks, only a file an hour old whose writer's id
//! is gone from this system is taken for one. A process never looks at the
//! temporary files it is writing itself: where locks are POSIX record
//! locks underneath (NFS), looking would unlock them.
//!
//! [`AtomicFile`] is the primitive (for writers that seek, such as a file
//! whose header is written last); [`write_atomically`] and
//! [`create_atomically`] cover the common cases.

use std::collections::HashSet;
use std::ffi::OsStr;
use std::fs::{File, OpenOptions};
use std::io::{self, BufWriter};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Duration;

/// Distinguishes the temporary files of one process (a daemon may write
/// the same final path from two jobs).
static NEXT_TEMPORARY: AtomicU64 = AtomicU64::new(0);

/// The temporary files this process is writing, never taken for orphans
/// here. Where the file system emulates `flock` with POSIX record locks
/// (NFS), a process's locks never conflict with each other, and closing
/// any descriptor of a file drops them all: looking at its own file (open,
/// try the lock, close) would find it free and unlock it for every other
/// host.
static WRITING: Mutex<Option<HashSet<PathBuf>>> = Mutex::new(None);

/// Runs `change` on [`WRITING`].
fn writing<T>(change: impl FnOnce(&mut HashSet<PathBuf>) -> T) -> T {
    let mut set = WRITING.lock().unwrap_or_else(|e| e.into_inner());
    change(set.get_or_insert_with(HashSet::new))
}

/// A file being written under a temporary name next to its final path.
///
/// Nothing appears under the final name before [`AtomicFile::commit`];
/// dropping it uncommitted removes the temporary file.
#[derive(Debug)]
pub struct AtomicFile {
    path: PathBuf,
    tmp: PathBuf,
    file: Option<File>,
    /// Renamed into place: the temporary name is free, perhaps another
    /// writer's already.
    renamed: bool,
}

impl AtomicFile {
    /// Creates the temporary file for `path`, under a name no other writer
    /// uses (this process's id and a counter; an existing file or link of
    /// that name is an error, never followed), locked until it is renamed
    /// or removed.
    pub fn create(path: &Path) -> io::Result<Self> {
        let name = path.file_name().ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{}: not a file path", path.display()),
            )
        })?;
        remove_orphans(path, name);
        // Another container's writer may have the same process id (each
        // container's first process is 1) and so the same name: the next
        // serial then.
        let mut attempts = 0;
        let (tmp, file) = loop {
            let mut tmp_name = name.to_owned();
            let serial = NEXT_TEMPORARY.fetch_add(1, Ordering::Relaxed);
            tmp_name.push(format!(".{}.{serial}.tmp", std::process::id()));
            let tmp = path.with_file_name(tmp_name);
            // Listed before it exists, so that no look for orphans in this
            // process ever opens it.
            writing(|set| set.insert(tmp.clone()));
            match OpenOptions::new().write(true).create_new(true).open(&tmp) {
                Ok(file) => break (tmp, file),
                Err(e) => {
                    writing(|set| set.remove(&tmp));
                    if e.kind() == io::ErrorKind::AlreadyExists && attempts < 64 {
                        attempts += 1
                    } else {
                        return Err(e);
                    }
                }
            }
        };
        if let Err(e) = lock_own(&file) {
            let _ = std::fs::remove_file(&tmp);
            writing(|set| set.remove(&tmp));
            return Err(e);
        }
        Ok(Self {
            path: path.to_owned(),
            tmp,
            file: Some(file),
            renamed: false,
        })
    }

    /// The file to write.
    pub fn file(&mut self) -> &mut File {
        self.file.as_mut().expect("open until dropped")
    }

    /// The final path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The temporary path (for error messages).
    pub fn temporary_path(&self) -> &Path {
        &self.tmp
    }

    /// Syncs the file and renames it into place, replacing any file there.
    pub fn commit(mut self) -> io::Result<()> {
        self.sync()?;
        std::fs::rename(&self.tmp, &self.path)?;
        self.renamed = true;
        sync_parent(&self.path);
        Ok(())
    }

    /// Syncs the file and hard-links it to the final path, which must not
    /// exist: linking fails when another writer created it meanwhile, so an
    /// existing file is never replaced (a file system without hard links is
    /// an error here). Returns whether the file was created.
    pub fn commit_new(mut self) -> io::Result<bool> {
        self.sync()?;
        let created = match std::fs::hard_link(&self.tmp, &self.path) {
            Ok(()) => true,
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => false,
            Err(e) => return Err(e),
        };
        // Drop removes the temporary name; the linked file stays.
        if created {
            sync_parent(&self.path);
        }
        Ok(created)
    }

    /// Syncs the file, which stays open (and locked) until `self` is
    /// dropped, after its rename or link.
    fn sync(&mut self) -> io::Result<()> {
        self.file().sync_all()
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        // After a failure or a hard link, the temporary name is removed;
        // after a rename it is not ours any more.
        if !self.renamed {
            let _ = std::fs::remove_file(&self.tmp);
        }
        // Closed (and unlocked) first: once unlisted, this process may
        // look at the name again.
        drop(self.file.take());
        writing(|set| set.remove(&self.tmp));
    }
}

/// The writer's process id in a temporary name of `name`
/// (`<name>.<pid>.<serial>.tmp`), if `file` is one.
fn temporary_owner(file: &OsStr, name: &OsStr) -> Option<u32> {
    let rest = file.to_str()?.strip_prefix(name.to_str()?)?;
    let (pid, serial) = rest
        .strip_prefix('.')?
        .strip_suffix(".tmp")?
        .split_once('.')?;
    serial.parse::<u64>().ok()?;
    pid.parse().ok()
}

/// An empty temporary file no one holds locked is an orphan once this
/// old: a writer that has just created its file may not have locked it
/// yet.
const ORPHAN_MIN_AGE: Duration = Duration::from_secs(60);

/// Where the file system has no locks, a temporary file is an orphan once
/// this old and named for a process gone from this system: a live writer
/// of another host or container may seem gone, and writes a 32 GiB
/// sector's PCE for minutes.
const LOCKLESS_ORPHAN_MIN_AGE: Duration = Duration::from_secs(3600);

/// Removes the temporary files of `path` whose writer is gone. Best
/// effort: a file another process removes first, or an unreadable
/// directory, is no reason to fail the write.
fn remove_orphans(path: &Path, name: &OsStr) {
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let file = entry.file_name();
        let Some(pid) = temporary_owner(&file, name) else {
            continue;
        };
        if writing(|set| set.contains(&entry.path())) {
            continue;
        }
        if is_orphan(&entry.path(), pid) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// Locks a temporary file just created. Another writer looking for
/// orphans may hold its lock for a moment (between the file's creation and
/// this lock), and a file written unlocked would pass for an orphan and be
/// removed under its writer: the lock is retried until it is taken, and
/// the write given up (an error) if it is not within ten seconds. Where
/// the file system has no locks, orphans are told by their age and their
/// writer's process id instead.
fn lock_own(file: &File) -> io::Result<()> {
    for _ in 0..10_000 {
        match file.try_lock() {
            Err(std::fs::TryLockError::WouldBlock) => {
                std::thread::sleep(Duration::from_millis(1));
            }
            _ => return Ok(()),
        }
    }
    Err(io::Error::new(
        io::ErrorKind::WouldBlock,
        "the new temporary file stayed locked by another process",
    ))
}

/// Whether the temporary file `tmp`, named for process `pid`, is no
/// longer written: locked by no one, and written to (its writer locked it
/// first) or older than [`ORPHAN_MIN_AGE`]; where the file system has no
/// locks, older than [`LOCKLESS_ORPHAN_MIN_AGE`] and named for a process
/// this system no longer has. An empty file's writer may be between
/// creating and locking it, and its process id means nothing here when it
/// runs in another container.
fn is_orphan(tmp: &Path, pid: u32) -> bool {
    // Opened for writing: an exclusive lock emulated with POSIX record
    // locks (NFS) needs it, and would otherwise fail as if the file
    // system had none.
    let Ok(file) = OpenOptions::new().read(true).write(true).open(tmp) else {
        return false;
    };
    let metadata = file.metadata().ok();
    let written = metadata.as_ref().is_some_and(|m| m.len() > 0);
    let modified = metadata.and_then(|m| m.modified().ok());
    let age = modified.and_then(|t| t.elapsed().ok());
    let older_than = |min: Duration| age.is_some_and(|age| age >= min);
    match file.try_lock() {
        Ok(()) => written || older_than(ORPHAN_MIN_AGE),
        Err(std::fs::TryLockError::WouldBlock) => false,
        Err(std::fs::TryLockError::Error(_)) => {
            older_than(LOCKLESS_ORPHAN_MIN_AGE) && process_gone(pid)
        }
    }
}

/// Whether process `pid` is gone from this system (Linux: no
/// `/proc/<pid>`; elsewhere it is never known to be). A process of
/// another container may be alive and not shown.
fn process_gone(pid: u32) -> bool {
    Path::new("/proc/self").exists() && !Path::new("/proc").join(pid.to_string()).exists()
}

/// Persists a rename in `path`'s directory; not every file system allows
/// syncing a directory, and the rename is already done, so failure is ignored.
fn sync_parent(path: &Path) {
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let _ = File::open(dir).and_then(|d| d.sync_all());
}

/// Runs `write` on a buffered writer over `file` and flushes it.
fn write_buffered(
    atomic: &mut AtomicFile,
    write: impl FnOnce(&mut BufWriter<&mut File>) -> io::Result<()>,
) -> io::Result<()> {
    let mut out = BufWriter::with_capacity(1 << 20, atomic.file());
    write(&mut out)?;
    out.into_inner().map_err(|e| e.into_error())?;
    Ok(())
}

/// Writes `path` through a temporary file, synced and renamed into place;
/// on any error nothing is left behind and an existing `path` is untouched.
pub fn write_atomically(
    path: &Path,
    write: impl FnOnce(&mut BufWriter<&mut File>) -> io::Result<()>,
) -> io::Result<()> {
    let mut atomic = AtomicFile::create(path)?;
    write_buffered(&mut atomic, write)?;
    atomic.commit()
}

/// Like [`write_atomically`], but never replaces an existing `path`
/// ([`AtomicFile::commit_new`]). Returns whether the file was created;
/// `write` is not called when `path` already exists.
pub fn create_atomically(
    path: &Path,
    write: impl FnOnce(&mut BufWriter<&mut File>) -> io::Result<()>,
) -> io::Result<bool> {
    if path.exists() {
        return Ok(false);
    }
    let mut atomic = AtomicFile::create(path)?;
    write_buffered(&mut atomic, write)?;
    atomic.commit_new()
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;

    fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    /// A writer whose new temporary file another writer is checking for
    /// an orphan (its lock held for a moment) still takes the lock once
    /// it is free, so that the file never passes for an orphan.
    #[test]
    fn a_writer_takes_its_lock_once_an_orphan_check_lets_go() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("file.tmp");
        let own = File::create(&path).unwrap();
        let checker = File::open(&path).unwrap();
        checker.try_lock().unwrap();
        let release = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(30));
            drop(checker);
        });
        lock_own(&own).unwrap();
        release.join().unwrap();
        let other = File::open(&path).unwrap();
        assert!(matches!(
            other.try_lock(),
            Err(std::fs::TryLockError::WouldBlock)
        ));
    }

    #[test]
    fn write_atomically_replaces_or_leaves_untouched() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("file");
        write_atomically(&path, |out| out.write_all(b"first")).unwrap();
        write_atomically(&path, |out| out.write_all(b"second")).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"second");
        let failed = write_atomically(&path, |out| {
            out.write_all(b"half")?;
            Err(io::Error::other("disk full"))
        });
        assert!(failed.is_err());
        assert_eq!(std::fs::read(&path).unwrap(), b"second");
        assert_eq!(names(dir.path()), ["file"]);
    }

    #[test]
    fn create_atomically_never_replaces_a_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("file");
        assert!(create_atomically(&path, |out| out.write_all(b"first")).unwrap());
        let again = create_atomically(&path, |_| panic!("not called when the file exists"));
        assert!(!again.unwrap());
        assert_eq!(std::fs::read(&path).unwrap(), b"first");

        let failed = dir.path().join("failed");
        let err = create_atomically(&failed, |_| Err(io::Error::other("no")));
        assert!(err.is_err());
        assert_eq!(names(dir.path()), ["file"]);
    }

    #[test]
    fn an_uncommitted_file_leaves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("file");
        let mut atomic = AtomicFile::create(&path).unwrap();
        atomic.file().write_all(b"abandoned").unwrap();
        assert!(atomic.temporary_path().exists());
        drop(atomic);
        assert!(names(dir.path()).is_empty());
    }

    #[test]
    fn a_temporary_name_another_container_took_is_passed_over() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("proof");
        // A writer elsewhere with this process's id, holding (locked, as
        // it writes them) the names this process would take next.
        let next = NEXT_TEMPORARY.load(Ordering::Relaxed);
        let mut held = Vec::new();
        for serial in next..next + 8 {
            let taken = dir
                .path()
                .join(format!("proof.{}.{serial}.tmp", std::process::id()));
            std::fs::write(&taken, b"theirs").unwrap();
            let file = File::open(&taken).unwrap();
            file.try_lock().unwrap();
            held.push(file);
        }
        write_atomically(&path, |out| out.write_all(b"ours")).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"ours");
        assert_eq!(names(dir.path()).len(), 9, "theirs left alone");
    }

    #[test]
    fn two_writers_of_one_path_do_not_share_a_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("file");
        let mut first = AtomicFile::create(&path).unwrap();
        let mut second = AtomicFile::create(&path).unwrap();
        assert_ne!(first.temporary_path(), second.temporary_path());
        first.file().write_all(b"first").unwrap();
        second.file().write_all(b"second").unwrap();
        first.commit().unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"first");
        second.commit().unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"second");
        assert_eq!(names(dir.path()), ["file"]);
    }

    /// Sets `path`'s modification time `age` in the past.
    fn age(path: &Path, age: Duration) {
        let file = File::options().write(true).open(path).unwrap();
        let then = std::time::SystemTime::now() - age;
        file.set_modified(then).unwrap();
    }

    #[test]
    fn temporaries_no_writer_holds_are_removed_by_the_next_writer() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("proof");
        // A process that has exited: its id names no process (until reused).
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let dead = child.id();
        child.wait().unwrap();
        let alive = std::process::id();
        // Left by writers that died (no destructor ran): written to, or
        // empty and old, whether their process is gone or named for one
        // alive here (as another container's writer may seem, or a reused
        // id).
        let written = dir.path().join(format!("proof.{alive}.97.tmp"));
        let old = [
            dir.path().join(format!("proof.{dead}.0.tmp")),
            dir.path().join(format!("proof.{alive}.99.tmp")),
        ];
        std::fs::write(&written, b"partial").unwrap();
        // Just created by live writers that have not locked them yet, one
        // in another container (its id unknown here).
        let young = [
            format!("proof.{alive}.98.tmp"),
            format!("proof.{dead}.1.tmp"),
        ];
        for file in old
            .iter()
            .cloned()
            .chain(young.iter().map(|n| dir.path().join(n)))
        {
            std::fs::write(file, b"").unwrap();
        }
        for old in &old {
            age(old, 2 * ORPHAN_MIN_AGE);
        }
        let others = [format!("other.{dead}.0.tmp"), format!("proof.{dead}.tmp")];
        for file in &others {
            std::fs::write(dir.path().join(file), b"partial").unwrap();
        }
        // Another writer of the same path, still writing (its lock held)
        // for longer than the minimum age.
        let mut writing = AtomicFile::create(&path).unwrap();
        writing.file().write_all(b"partial").unwrap();
        age(writing.temporary_path(), 2 * ORPHAN_MIN_AGE);

        write_atomically(&path, |out| out.write_all(b"whole")).unwrap();
        let writing_name = writing.temporary_path().file_name().unwrap();
        let mut expected = vec![
            "proof".to_owned(),
            writing_name.to_string_lossy().into_owned(),
        ];
        expected.extend(young);
        expected.extend(others);
        expected.sort();
        assert_eq!(
            names(dir.path()),
            expected,
            "only the temporaries of this path no one holds, written to or old, go"
        );
        writing.commit().unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"partial");
    }

    #[test]
    fn a_path_without_a_file_name_is_refused() {
        let err = AtomicFile::create(Path::new("/")).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidInput);
    }
}
