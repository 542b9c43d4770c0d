//! Writing a finished output to a path the user named (bench's exports): a file whole or not at
//! all, through a temporary file of a unique name renamed over it; anything else (a terminal,
//! `/dev/stdout`, a pipe, a FIFO, a symbolic link) straight through, since a rename would
//! replace the device, the pipe or the link with a file.

use std::fs::{OpenOptions, Permissions};
use std::io::{self, Write};
use std::path::Path;

/// Writes `bytes` to `path`: whole or not at all when it is a regular file or does not exist
/// yet (the file keeps its permissions; a new one gets the umask's), straight through otherwise.
pub fn write_whole(path: &Path, bytes: &[u8]) -> io::Result<()> {
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.is_file() => replace(path, bytes, Some(meta.permissions())),
        Ok(_) => write_through(path, bytes),
        Err(e) if e.kind() == io::ErrorKind::NotFound => replace(path, bytes, None),
        Err(e) => Err(e),
    }
}

/// A temporary file beside `path`, named so that it cannot be a user's (`.NAME.XXXXXX.tmp`,
/// created exclusively), renamed over `path` once written; removed if anything fails.
fn replace(path: &Path, bytes: &[u8], permissions: Option<Permissions>) -> io::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let prefix = format!(
        ".{}.",
        path.file_name().unwrap_or_default().to_string_lossy()
    );
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(".tmp");
    #[cfg(unix)]
    let new_file = {
        use std::os::unix::fs::PermissionsExt;
        Permissions::from_mode(0o666)
    };
    #[cfg(unix)]
    builder.permissions(permissions.unwrap_or(new_file));
    #[cfg(not(unix))]
    let _ = permissions;
    let mut tmp = builder.tempfile_in(dir)?;
    tmp.write_all(bytes)?;
    tmp.flush()?;
    tmp.persist(path).map(drop).map_err(|e| e.error)
}

/// Writes into what `path` names as it is. This process's own stdout or stderr (`/dev/stdout`,
/// also when it was redirected to a file) is written through its open descriptor, so that the
/// bytes come after what was already printed instead of over it.
fn write_through(path: &Path, bytes: &[u8]) -> io::Result<()> {
    match own_stream(path) {
        Some(Stream::Stdout) => {
            let mut out = io::stdout().lock();
            out.write_all(bytes).and_then(|_| out.flush())
        }
        Some(Stream::Stderr) => {
            let mut err = io::stderr().lock();
            err.write_all(bytes).and_then(|_| err.flush())
        }
        None => {
            let regular = std::fs::metadata(path).is_ok_and(|m| m.is_file());
            let mut file = OpenOptions::new()
                .write(true)
                .truncate(regular)
                .open(path)?;
            file.write_all(bytes)?;
            file.flush()
        }
    }
}

/// This process's own stream. Only Unix names them as paths (`/dev/stdout`, `/dev/fd/1`); on
/// Windows no path is one, and every path is written as a file.
#[cfg_attr(not(unix), allow(dead_code))]
enum Stream {
    Stdout,
    Stderr,
}

/// Whether `path` is the file this process's stdout or stderr is open on.
#[cfg(unix)]
fn own_stream(path: &Path) -> Option<Stream> {
    use std::os::fd::AsFd;
    use std::os::unix::fs::MetadataExt;
    let target = std::fs::metadata(path).ok()?;
    let same = |fd: std::os::fd::BorrowedFd<'_>| {
        let file = std::fs::File::from(fd.try_clone_to_owned().ok()?);
        let meta = file.metadata().ok()?;
        Some(meta.dev() == target.dev() && meta.ino() == target.ino())
    };
    if same(io::stdout().as_fd()) == Some(true) {
        Some(Stream::Stdout)
    } else if same(io::stderr().as_fd()) == Some(true) {
        Some(Stream::Stderr)
    } else {
        None
    }
}

#[cfg(not(unix))]
fn own_stream(_: &Path) -> Option<Stream> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn a_file_is_replaced_whole_and_a_users_partial_file_is_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bench.json");
        let partial = dir.path().join("bench.partial");
        std::fs::write(&partial, "the user's").unwrap();
        write_whole(&path, b"new file\n").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new file\n");
        std::fs::write(&path, "old, and longer than the new\n").unwrap();
        write_whole(&path, b"second\n").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "second\n");
        assert_eq!(std::fs::read_to_string(&partial).unwrap(), "the user's");
        assert_eq!(names(dir.path()), ["bench.json", "bench.partial"]);
    }

    #[cfg(unix)]
    #[test]
    fn a_replaced_file_keeps_its_permissions_and_a_new_one_is_not_private() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bench.json");
        write_whole(&path, b"1").unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_ne!(mode(&path) & 0o044, 0, "readable as a file the user made");
        std::fs::set_permissions(&path, Permissions::from_mode(0o640)).unwrap();
        write_whole(&path, b"2").unwrap();
        assert_eq!(mode(&path), 0o640);
    }

    #[cfg(unix)]
    #[test]
    fn a_symbolic_link_is_written_through_and_kept() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("target.json");
        std::fs::write(&target, "old, and longer than the new\n").unwrap();
        let link = dir.path().join("link.json");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        write_whole(&link, b"new\n").unwrap();
        assert!(std::fs::symlink_metadata(&link).unwrap().is_symlink());
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "new\n");
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_is_written_into_not_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .expect("mkfifo (coreutils) runs");
        assert!(made.success());
        let (tx, rx) = std::sync::mpsc::channel();
        let reader = fifo.clone();
        std::thread::spawn(move || {
            let _ = tx.send(std::fs::read_to_string(reader));
        });
        write_whole(&fifo, b"through the pipe\n").unwrap();
        let read = rx
            .recv_timeout(Duration::from_secs(10))
            .expect("the reader got the bytes within 10 s");
        assert_eq!(read.unwrap(), "through the pipe\n");
        use std::os::unix::fs::FileTypeExt;
        assert!(std::fs::symlink_metadata(&fifo)
            .unwrap()
            .file_type()
            .is_fifo());
        assert_eq!(names(dir.path()), ["fifo"]);
    }
}
