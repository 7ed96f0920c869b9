//! Screenshots for the model (`--vision`): read from disk within a size cap.

use std::path::Path;

/// Largest screenshot sent to the model, in bytes of PNG: both APIs refuse
/// images much past a few MiB (Anthropic: 5 MB once base64-encoded), and a
/// bigger one would mostly be cost.
pub const MAX_MODEL_IMAGE_BYTES: u64 = 2 * 1024 * 1024;

/// What the profiles' screenshots are.
pub(super) const SCREENSHOT_MEDIA_TYPE: &str = "image/png";

/// The bytes of a screenshot for the model, or why it is not sent.
pub(super) async fn read_image(path: &Path) -> Result<Vec<u8>, ImageSkipped> {
    let io = |source| ImageSkipped::Unreadable { source };
    let size = tokio::fs::metadata(path).await.map_err(io)?.len();
    if size > MAX_MODEL_IMAGE_BYTES {
        return Err(ImageSkipped::TooBig { size });
    }
    tokio::fs::read(path).await.map_err(io)
}

/// Why a screenshot stays out of the conversation.
#[derive(Debug, thiserror::Error)]
pub(super) enum ImageSkipped {
    #[error("it cannot be read: {source}")]
    Unreadable { source: std::io::Error },
    #[error("it is {size} bytes, over the {MAX_MODEL_IMAGE_BYTES}-byte limit")]
    TooBig { size: u64 },
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

    use super::*;

    #[tokio::test]
    async fn screenshots_past_the_cap_are_not_read() {
        let dir = tempfile::tempdir().unwrap();
        let cases = [
            ("small.png", 1_000, true),
            ("at-cap.png", MAX_MODEL_IMAGE_BYTES, true),
            ("over-cap.png", MAX_MODEL_IMAGE_BYTES + 1, false),
        ];
        for (name, size, sent) in cases {
            let path = dir.path().join(name);
            std::fs::write(&path, vec![0u8; usize::try_from(size).unwrap()]).unwrap();
            let read = read_image(&path).await;
            assert_eq!(read.is_ok(), sent, "{name}");
            if !sent {
                assert!(matches!(read, Err(ImageSkipped::TooBig { size: s }) if s == size));
            }
        }
        let missing = read_image(&dir.path().join("none.png")).await;
        assert!(matches!(missing, Err(ImageSkipped::Unreadable { .. })));
    }
}
