//! Parsing the command line's values: durations, sizes and the address to listen on.

use std::fmt;
use std::net::{Ipv4Addr, Ipv6Addr, SocketAddr};
use std::str::FromStr;
use std::time::Duration;

use tokio::net::TcpListener;

/// Parses a duration: a number with a unit `ms`, `s`, `m` or `h` (`30s`, `500ms`, `1m`),
/// or `0`.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    if text == "0" {
        return Ok(Duration::ZERO);
    }
    let split = text
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let number: f64 = number
        .parse()
        .map_err(|_| format!("invalid duration {text:?} (expected e.g. 30s, 500ms, 2m)"))?;
    let seconds = match unit {
        "ms" => number / 1000.0,
        "s" => number,
        "m" => number * 60.0,
        "h" => number * 3600.0,
        _ => {
            return Err(format!(
                "invalid duration {text:?}: the unit must be ms, s, m or h"
            ))
        }
    };
    Duration::try_from_secs_f64(seconds).map_err(|e| format!("invalid duration {text:?}: {e}"))
}

/// Parses a size in bytes: a number, optionally with a suffix `Ki`, `Mi`, `Gi` (powers
/// of 1024) or `k`, `M`, `G` (powers of 1000), as Kubernetes quantities.
pub fn parse_size(text: &str) -> Result<usize, String> {
    let text = text.trim();
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (number, suffix) = text.split_at(split);
    let number: usize = number
        .parse()
        .map_err(|_| format!("invalid size {text:?} (expected e.g. 16Mi, 1048576)"))?;
    let unit: usize = match suffix {
        "" => 1,
        "k" => 1000,
        "M" => 1000 * 1000,
        "G" => 1000 * 1000 * 1000,
        "Ki" => 1 << 10,
        "Mi" => 1 << 20,
        "Gi" => 1 << 30,
        _ => {
            return Err(format!(
                "invalid size {text:?}: the suffix must be Ki, Mi, Gi, k, M or G"
            ))
        }
    };
    number
        .checked_mul(unit)
        .ok_or_else(|| format!("invalid size {text:?}: too large"))
}

/// The address to listen on: `HOST:PORT` (a host name, an IPv4 address or a bracketed
/// IPv6 address) or `:PORT` (every interface).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListenAddr {
    /// The host, `None` for every interface.
    pub host: Option<String>,
    /// The port (0: any free port).
    pub port: u16,
}

impl FromStr for ListenAddr {
    type Err = String;

    fn from_str(text: &str) -> Result<ListenAddr, String> {
        let invalid = || format!("invalid address {text:?} (expected HOST:PORT or :PORT)");
        let (host, port) = text.rsplit_once(':').ok_or_else(invalid)?;
        let port: u16 = port.parse().map_err(|_| invalid())?;
        let host = match host {
            "" => None,
            h if h.starts_with('[') && h.ends_with(']') => {
                let inner = h.get(1..h.len() - 1).unwrap_or("");
                inner.parse::<Ipv6Addr>().map_err(|_| invalid())?;
                Some(inner.to_owned())
            }
            h if h.contains(':') || h.contains(['/', ' ', '[', ']']) => return Err(invalid()),
            h => Some(h.to_owned()),
        };
        Ok(ListenAddr { host, port })
    }
}

impl fmt::Display for ListenAddr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.host {
            None => write!(f, ":{}", self.port),
            Some(h) if h.contains(':') => write!(f, "[{h}]:{}", self.port),
            Some(h) => write!(f, "{h}:{}", self.port),
        }
    }
}

impl ListenAddr {
    /// Binds a listener: for `:PORT`, on every IPv6 and IPv4 interface (or every IPv4
    /// one where IPv6 is not available); for a host name, on the first of its addresses
    /// that can be bound.
    pub async fn bind(&self) -> std::io::Result<TcpListener> {
        match &self.host {
            None => {
                match TcpListener::bind(SocketAddr::from((Ipv6Addr::UNSPECIFIED, self.port))).await
                {
                    Ok(listener) => Ok(listener),
                    Err(_) => {
                        TcpListener::bind(SocketAddr::from((Ipv4Addr::UNSPECIFIED, self.port)))
                            .await
                    }
                }
            }
            Some(host) => TcpListener::bind((host.as_str(), self.port)).await,
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_duration("30s"), Ok(Duration::from_secs(30)));
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("1.5s"), Ok(Duration::from_millis(1500)));
        assert_eq!(parse_duration("2m"), Ok(Duration::from_secs(120)));
        assert_eq!(parse_duration("1h"), Ok(Duration::from_secs(3600)));
        assert_eq!(parse_duration("0"), Ok(Duration::ZERO));
        assert_eq!(
            parse_duration("30"),
            Err("invalid duration \"30\": the unit must be ms, s, m or h".into())
        );
        assert_eq!(
            parse_duration("s"),
            Err("invalid duration \"s\" (expected e.g. 30s, 500ms, 2m)".into())
        );
    }

    #[test]
    fn sizes() {
        assert_eq!(parse_size("16Mi"), Ok(16 << 20));
        assert_eq!(parse_size("1048576"), Ok(1 << 20));
        assert_eq!(parse_size("2k"), Ok(2000));
        assert_eq!(parse_size("1Gi"), Ok(1 << 30));
        assert_eq!(
            parse_size("16MB"),
            Err("invalid size \"16MB\": the suffix must be Ki, Mi, Gi, k, M or G".into())
        );
        assert!(parse_size("99999999999999999999").is_err());
        assert!(parse_size("-1").is_err());
    }

    #[test]
    fn listen_addresses() {
        let parse = |s: &str| s.parse::<ListenAddr>();
        let addr = |host: Option<&str>, port| ListenAddr {
            host: host.map(str::to_owned),
            port,
        };
        assert_eq!(parse(":8443"), Ok(addr(None, 8443)));
        assert_eq!(parse("localhost:8443"), Ok(addr(Some("localhost"), 8443)));
        assert_eq!(parse("0.0.0.0:443"), Ok(addr(Some("0.0.0.0"), 443)));
        assert_eq!(parse("[::1]:8443"), Ok(addr(Some("::1"), 8443)));
        assert_eq!(
            parse("webhook.example.svc:0"),
            Ok(addr(Some("webhook.example.svc"), 0))
        );
        for bad in [
            "8443",
            "localhost",
            "::1:8443",
            "[nope]:1",
            "host:99999",
            "host:",
        ] {
            assert_eq!(
                parse(bad),
                Err(format!(
                    "invalid address {bad:?} (expected HOST:PORT or :PORT)"
                )),
                "{bad}"
            );
        }
        assert_eq!(parse("[::1]:8443").unwrap().to_string(), "[::1]:8443");
        assert_eq!(parse(":8443").unwrap().to_string(), ":8443");
    }
}
