//! When to try again and how long to wait first: only failures a second
//! attempt can fix, exponential backoff with a ceiling, jitter so that many
//! clients do not retry in step, and the server's `retry-after` when it gives one.

use std::time::{Duration, SystemTime};

use reqwest::header::HeaderMap;

use super::{LlmSettings, UNREADABLE_REPLY_RETRIES};

/// Share of the backoff added at random on top of it.
const JITTER_FRACTION: f64 = 0.25;

/// 408 and 429 ask us to come back; 5xx (Anthropic's 529 "overloaded"
/// included) are the server's own trouble. Everything else is final.
pub(crate) fn is_retryable_status(status: u16) -> bool {
    matches!(status, 408 | 429) || (500..=599).contains(&status)
}

/// Whether a call may try again after `failed` failed attempts, of which
/// `unreadable` brought a reply it could not read: while attempts remain, and
/// only [`UNREADABLE_REPLY_RETRIES`] times for such replies.
pub(crate) fn may_retry(max_attempts: u32, failed: u32, unreadable: u32) -> bool {
    failed < max_attempts.max(1) && unreadable <= UNREADABLE_REPLY_RETRIES
}

/// The wait after `failed_attempts` failures: base, 2×base, 4×base, ...
/// capped at `max_backoff`, plus up to a quarter more at random, and never
/// less than what the server asked for.
pub(crate) fn delay(
    settings: &LlmSettings,
    failed_attempts: u32,
    retry_after: Option<Duration>,
) -> Duration {
    let doublings = failed_attempts.saturating_sub(1).min(31);
    let exponential = settings
        .backoff_base
        .saturating_mul(1u32 << doublings)
        .min(settings.max_backoff);
    let jittered = exponential.mul_f64(1.0 + JITTER_FRACTION * fastrand::f64());
    retry_after.map_or(jittered, |asked| asked.max(jittered))
}

/// `retry-after-ms` (OpenAI), else `retry-after` in seconds or as an HTTP
/// date, as both providers' SDKs read them.
pub(crate) fn retry_after(headers: &HeaderMap, now: SystemTime) -> Option<Duration> {
    let header = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::trim)
    };
    if let Some(ms) = header("retry-after-ms").and_then(|v| v.parse::<f64>().ok())
        && ms.is_finite()
        && ms >= 0.0
    {
        return Some(Duration::from_secs_f64(ms / 1000.0));
    }
    let value = header("retry-after")?;
    if let Ok(seconds) = value.parse::<f64>() {
        return (seconds.is_finite() && seconds >= 0.0).then(|| Duration::from_secs_f64(seconds));
    }
    let date = chrono::DateTime::parse_from_rfc2822(value).ok()?;
    let at = SystemTime::from(date);
    Some(at.duration_since(now).unwrap_or(Duration::ZERO))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

    use reqwest::header::HeaderValue;

    use super::*;

    #[test]
    fn default_backoff_is_one_two_four_seconds_with_jitter() {
        let settings = LlmSettings::default();
        for (failed, base) in [(1, 1.0), (2, 2.0), (3, 4.0), (4, 4.0), (40, 4.0)] {
            for _ in 0..50 {
                let wait = delay(&settings, failed, None).as_secs_f64();
                assert!(wait >= base && wait <= base * 1.25, "{failed}: {wait}");
            }
        }
    }

    #[test]
    fn retry_after_is_a_floor_not_a_ceiling() {
        let settings = LlmSettings::default();
        let wait = delay(&settings, 1, Some(Duration::from_secs(3)));
        assert_eq!(wait, Duration::from_secs(3));
        let wait = delay(&settings, 3, Some(Duration::from_millis(10)));
        assert!(wait >= Duration::from_secs(4));
    }

    #[test]
    fn retry_after_formats() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000);
        let headers = |pairs: &[(&'static str, &str)]| {
            let mut map = HeaderMap::new();
            for (name, value) in pairs {
                map.insert(*name, HeaderValue::from_str(value).unwrap());
            }
            map
        };
        assert_eq!(
            retry_after(&headers(&[("retry-after", "2")]), now),
            Some(Duration::from_secs(2))
        );
        assert_eq!(
            retry_after(
                &headers(&[("retry-after", "2"), ("retry-after-ms", "1500")]),
                now
            ),
            Some(Duration::from_millis(1500))
        );
        // 2023-11-14T22:13:25Z is 5 s after `now`.
        assert_eq!(
            retry_after(
                &headers(&[("retry-after", "Tue, 14 Nov 2023 22:13:25 GMT")]),
                now
            ),
            Some(Duration::from_secs(5))
        );
        assert_eq!(
            retry_after(
                &headers(&[("retry-after", "Mon, 13 Nov 2023 00:00:00 GMT")]),
                now
            ),
            Some(Duration::ZERO)
        );
        assert_eq!(retry_after(&headers(&[("retry-after", "soon")]), now), None);
        assert_eq!(retry_after(&headers(&[("retry-after", "-1")]), now), None);
        assert_eq!(retry_after(&HeaderMap::new(), now), None);
    }

    #[test]
    fn unreadable_replies_are_retried_once_within_the_attempts_table() {
        // (max attempts, failed, of which unreadable, may retry)
        let cases = [
            (3, 1, 0, true),
            (3, 2, 0, true),
            (3, 3, 0, false),
            (3, 1, 1, true),
            (3, 2, 2, false),
            (3, 2, 1, true),
            (3, 3, 1, false),
            (1, 1, 1, false),
            (0, 1, 0, false),
            (5, 2, 2, false),
            (5, 4, 1, true),
        ];
        for (max_attempts, failed, unreadable, want) in cases {
            assert_eq!(
                may_retry(max_attempts, failed, unreadable),
                want,
                "{max_attempts} attempts, {failed} failed, {unreadable} unreadable"
            );
        }
    }

    #[test]
    fn only_transient_statuses_are_retried() {
        for status in [408, 429, 500, 502, 503, 529] {
            assert!(is_retryable_status(status), "{status}");
        }
        for status in [400, 401, 403, 404, 413, 422] {
            assert!(!is_retryable_status(status), "{status}");
        }
    }
}
