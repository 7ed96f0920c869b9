//! Signed-in browser profiles, one per service. Before, every service
//! shared one; a service's first run after that change starts from a copy of
//! it, so nobody has to sign in again, and the shared one is left as it was.

use std::path::Path;

use crate::error::{Error, Result};
use crate::paths::Dirs;

/// What a copy leaves out: Chromium's locks (they name the process that
/// held the profile, and a stale one reads as "in use") and its caches,
/// which are large and rebuilt on their own.
const NOT_COPIED: &[&str] = &[
    "SingletonLock",
    "SingletonSocket",
    "SingletonCookie",
    "lockfile",
    "Cache",
    "Code Cache",
    "GPUCache",
    "GrShaderCache",
    "GraphiteDawnCache",
    "ShaderCache",
    "DawnCache",
    "DawnGraphiteCache",
    "DawnWebGPUCache",
    "Crashpad",
];

/// Makes `service`'s profile from the shared one when it has none yet and
/// the shared one exists. Returns whether it copied. A half-made copy is
/// never used: it is built beside the destination and renamed into place.
pub fn adopt_shared(dirs: &Dirs, service: &str) -> Result<bool> {
    let own = dirs.signed_in_profile(service);
    let shared = dirs.shared_profile();
    if own.exists() || !shared.is_dir() {
        return Ok(false);
    }
    let io = |what: &str, path: &Path, e: std::io::Error| {
        Error::Configuration(format!(
            "{what} {}: {e}; check the folder's permissions and free space, or delete {} to start signed out",
            path.display(),
            shared.display()
        ))
    };
    let parent = own.parent().unwrap_or(&dirs.data);
    std::fs::create_dir_all(parent).map_err(|e| io("cannot create", parent, e))?;
    let building = tempfile::Builder::new()
        .prefix(&format!(".{service}-"))
        .tempdir_in(parent)
        .map_err(|e| io("cannot create a folder in", parent, e))?;
    copy_tree(&shared, building.path()).map_err(|e| io("cannot copy", &shared, e))?;
    let built = building.keep();
    if let Err(e) = std::fs::rename(&built, &own) {
        let _ = std::fs::remove_dir_all(&built);
        // Another run made it first: theirs is as good.
        if own.exists() {
            return Ok(false);
        }
        return Err(io("cannot move the copy to", &own, e));
    }
    Ok(true)
}

/// What the person is told after [`adopt_shared`] copied.
pub fn adopted_notice(dirs: &Dirs, display_name: &str, service: &str) -> String {
    format!(
        "Each service now keeps its own browser profile: {display_name}'s starts as a copy of the one all services shared ({}), so your sign-ins are kept.",
        dirs.signed_in_profile(service).display()
    )
}

fn copy_tree(from: &Path, to: &Path) -> std::io::Result<()> {
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let name = entry.file_name();
        if name.to_str().is_some_and(|n| NOT_COPIED.contains(&n)) {
            continue;
        }
        // Symlinks are Chromium's locks, or not the profile's to follow.
        let kind = entry.file_type()?;
        let target = to.join(&name);
        if kind.is_dir() {
            std::fs::create_dir(&target)?;
            copy_tree(&entry.path(), &target)?;
        } else if kind.is_file() {
            std::fs::copy(entry.path(), &target)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn a_service_starts_from_a_copy_of_the_shared_profile_once() {
        let home = tempfile::tempdir().unwrap();
        let dirs = Dirs::under(home.path());
        // Nothing to adopt: nothing happens.
        assert!(!adopt_shared(&dirs, "netflix").unwrap());
        assert!(!dirs.signed_in_profile("netflix").exists());

        let shared = dirs.shared_profile();
        std::fs::create_dir_all(shared.join("Default/Cache")).unwrap();
        std::fs::write(shared.join("Default/Cookies"), b"sid=1").unwrap();
        std::fs::write(shared.join("Default/Cache/data_0"), b"big").unwrap();
        std::fs::write(shared.join("Local State"), b"{}").unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink("host-4242", shared.join("SingletonLock")).unwrap();

        assert!(adopt_shared(&dirs, "netflix").unwrap());
        let own = dirs.signed_in_profile("netflix");
        assert_eq!(
            std::fs::read(own.join("Default/Cookies")).unwrap(),
            b"sid=1"
        );
        assert!(own.join("Local State").is_file());
        assert!(!own.join("Default/Cache").exists());
        assert!(own.join("SingletonLock").symlink_metadata().is_err());
        // The shared one is untouched, and a second call copies nothing.
        assert!(shared.join("Default/Cache/data_0").is_file());
        std::fs::write(own.join("Default/Cookies"), b"sid=2").unwrap();
        assert!(!adopt_shared(&dirs, "netflix").unwrap());
        assert_eq!(
            std::fs::read(own.join("Default/Cookies")).unwrap(),
            b"sid=2"
        );
        // No half-made folder is left beside it.
        let left: Vec<_> = std::fs::read_dir(own.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(left, ["netflix"]);
    }
}
