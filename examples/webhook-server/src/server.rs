//! The accept loop: TLS on every accepted connection (with `TCP_NODELAY`), HTTP/1.1 or
//! HTTP/2 on each, and the graceful shutdown that drains in-flight requests.

use std::future::Future;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::Router;
use hyper::body::Incoming;
use hyper::Request;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto;
use rustls::ServerConfig;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio::task::JoinSet;
use tokio_rustls::TlsAcceptor;
use tower::ServiceExt as _;

use crate::http::{floor_router, router, App, Peer};

/// How the server accepts, serves and shuts down.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ServeOptions {
    /// How long a client may take to complete the TLS handshake.
    pub handshake_timeout: Duration,
    /// How long an HTTP/1.1 client may take to send a request's headers, counted from
    /// when the connection starts waiting for it: it also closes idle keep-alive
    /// connections. Keep it above the clients' idle timeout (90 s for the apiserver's Go
    /// client), or a request sent on a pooled connection as the server closes it fails.
    pub header_read_timeout: Duration,
    /// After the shutdown signal, how long the server goes on accepting connections
    /// (while `/readyz` already fails) so that endpoints and load balancers stop sending
    /// it requests first.
    pub shutdown_delay: Duration,
    /// How long the requests in flight at shutdown may take to finish.
    pub grace_period: Duration,
    /// Serve [`floor_router`] instead of the webhooks: every request's body is read and a
    /// fixed AdmissionReview answered, over the same TLS, HTTP and connection handling
    /// (the floor the load test measures the server against).
    pub floor: bool,
}

impl Default for ServeOptions {
    fn default() -> ServeOptions {
        ServeOptions {
            handshake_timeout: Duration::from_secs(10),
            header_read_timeout: Duration::from_secs(120),
            shutdown_delay: Duration::ZERO,
            grace_period: Duration::from_secs(30),
            floor: false,
        }
    }
}

/// What a graceful shutdown drained.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Drained {
    /// Connections open when the server stopped accepting.
    pub connections: usize,
    /// Requests in flight when the server stopped accepting.
    pub requests: usize,
    /// Requests answered while draining (those in flight, and any that HTTP/1.1
    /// keep-alive or HTTP/2 clients sent before seeing the shutdown).
    pub answered: u64,
    /// Connections still open when the grace period ran out, closed unfinished.
    pub abandoned: usize,
    /// How long the drain took.
    pub elapsed: Duration,
}

impl Drained {
    /// Whether every connection finished within the grace period.
    pub fn complete(&self) -> bool {
        self.abandoned == 0
    }
}

#[derive(Debug, Default)]
struct Tracker {
    in_flight: AtomicUsize,
    answered: AtomicU64,
}

struct Tracked<'a>(&'a Tracker);

impl Drop for Tracked<'_> {
    fn drop(&mut self) {
        self.0.in_flight.fetch_sub(1, Ordering::SeqCst);
        self.0.answered.fetch_add(1, Ordering::SeqCst);
    }
}

impl Tracker {
    fn track(&self) -> Tracked<'_> {
        self.in_flight.fetch_add(1, Ordering::SeqCst);
        Tracked(self)
    }
}

struct Shared {
    acceptor: TlsAcceptor,
    router: Router,
    app: Arc<App>,
    tracker: Tracker,
    stop: watch::Receiver<bool>,
    options: ServeOptions,
}

/// Serves the app over TLS on `listener` until `shutdown` completes, then shuts down
/// gracefully and reports what it drained:
///
/// 1. `/readyz` fails from then on; for [`ServeOptions::shutdown_delay`] the server goes
///    on accepting and serving;
/// 2. it stops accepting (the listener is closed) and asks every connection to finish:
///    an HTTP/1.1 connection closes after its current request, an HTTP/2 connection gets
///    `GOAWAY` and finishes its open streams;
/// 3. it waits up to [`ServeOptions::grace_period`] for them, then closes what is left.
///
/// Each connection is served on its own task with `TCP_NODELAY` set, so that small
/// HTTP/2 frames are not held back by Nagle's algorithm waiting for the client's delayed
/// acknowledgement. A failed handshake or connection ends only that connection.
pub async fn serve(
    listener: TcpListener,
    tls: Arc<ServerConfig>,
    app: Arc<App>,
    options: ServeOptions,
    shutdown: impl Future<Output = ()>,
) -> Drained {
    let (stop_tx, stop_rx) = watch::channel(false);
    let shared = Arc::new(Shared {
        acceptor: TlsAcceptor::from(tls),
        router: if options.floor {
            floor_router()
        } else {
            router(app.clone())
        },
        app: app.clone(),
        tracker: Tracker::default(),
        stop: stop_rx,
        options,
    });
    let mut connections = JoinSet::new();
    app.set_ready(true);
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        tokio::select! {
            biased;
            () = &mut shutdown => break,
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
            accepted = listener.accept() => accept(&shared, &mut connections, accepted).await,
        }
    }
    app.set_ready(false);
    if !options.shutdown_delay.is_zero() {
        tracing::info!(
            delay = ?options.shutdown_delay,
            "not ready; serving on for the shutdown delay"
        );
        let delay = tokio::time::sleep(options.shutdown_delay);
        let mut delay = std::pin::pin!(delay);
        loop {
            tokio::select! {
                biased;
                () = &mut delay => break,
                Some(_) = connections.join_next(), if !connections.is_empty() => {}
                accepted = listener.accept() => accept(&shared, &mut connections, accepted).await,
            }
        }
    }
    drop(listener);
    let started = Instant::now();
    let open = connections.len();
    let requests = shared.tracker.in_flight.load(Ordering::SeqCst);
    let answered_before = shared.tracker.answered.load(Ordering::SeqCst);
    tracing::info!(
        connections = open,
        requests,
        grace_period = ?options.grace_period,
        "stopped accepting connections; draining"
    );
    let _ = stop_tx.send(true);
    let finished = tokio::time::timeout(options.grace_period, async {
        while connections.join_next().await.is_some() {}
    })
    .await
    .is_ok();
    let abandoned = if finished {
        0
    } else {
        let left = connections.len();
        connections.abort_all();
        while connections.join_next().await.is_some() {}
        left
    };
    let drained = Drained {
        connections: open,
        requests,
        answered: shared.tracker.answered.load(Ordering::SeqCst) - answered_before,
        abandoned,
        elapsed: started.elapsed(),
    };
    if drained.complete() {
        tracing::info!(
            connections = drained.connections,
            requests = drained.requests,
            answered = drained.answered,
            elapsed = ?drained.elapsed,
            "drained: every request in flight was answered"
        );
    } else {
        tracing::error!(
            connections = drained.connections,
            requests = drained.requests,
            answered = drained.answered,
            abandoned_connections = drained.abandoned,
            "the grace period ran out: connections closed with requests unanswered"
        );
    }
    drained
}

async fn accept(
    shared: &Arc<Shared>,
    connections: &mut JoinSet<()>,
    accepted: std::io::Result<(TcpStream, SocketAddr)>,
) {
    match accepted {
        Ok((stream, peer)) => {
            connections.spawn(connection(shared.clone(), stream, peer));
        }
        Err(e) => {
            // Out of file descriptors and the like: wait a little, then go on.
            tracing::error!("cannot accept a connection: {e}");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}

/// Sets up an accepted socket: `TCP_NODELAY`, so that a small write (an HTTP/2 frame, a
/// TLS record) goes out at once instead of waiting until the client acknowledges the
/// previous one, which it may delay by 40 ms.
fn configure_accepted(stream: &TcpStream, peer: SocketAddr) {
    if let Err(e) = stream.set_nodelay(true) {
        tracing::debug!(%peer, "cannot set TCP_NODELAY: {e}");
    }
}

async fn connection(shared: Arc<Shared>, stream: TcpStream, peer: SocketAddr) {
    configure_accepted(&stream, peer);
    let tls = match tokio::time::timeout(
        shared.options.handshake_timeout,
        shared.acceptor.accept(stream),
    )
    .await
    {
        Ok(Ok(tls)) => tls,
        Ok(Err(e)) => {
            tracing::debug!(%peer, "TLS handshake failed: {e}");
            return;
        }
        Err(_) => {
            tracing::debug!(%peer, "TLS handshake timed out");
            return;
        }
    };
    let for_requests = shared.clone();
    let service = hyper::service::service_fn(move |mut request: Request<Incoming>| {
        let shared = for_requests.clone();
        request.extensions_mut().insert(Peer(peer));
        async move {
            let _tracked = shared.tracker.track();
            let response = shared.router.clone().oneshot(request).await;
            if let Ok(r) = &response {
                shared.app.metrics.responded(r.status().as_u16());
            }
            response
        }
    });
    let mut builder = auto::Builder::new(TokioExecutor::new());
    builder
        .http1()
        .timer(TokioTimer::new())
        .header_read_timeout(shared.options.header_read_timeout);
    builder.http2().timer(TokioTimer::new());
    let conn = builder.serve_connection(TokioIo::new(tls), service);
    let mut conn = std::pin::pin!(conn);
    let mut stop = shared.stop.clone();
    let result = tokio::select! {
        result = conn.as_mut() => result,
        _ = async { stop.wait_for(|stop| *stop).await.is_ok() } => {
            conn.as_mut().graceful_shutdown();
            conn.await
        }
    };
    if let Err(e) = result {
        tracing::debug!(%peer, "connection ended: {e}");
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[tokio::test]
    async fn accepted_sockets_have_tcp_nodelay() {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let client = TcpStream::connect(listener.local_addr().unwrap())
            .await
            .unwrap();
        let (accepted, peer) = listener.accept().await.unwrap();
        assert!(!accepted.nodelay().unwrap());
        configure_accepted(&accepted, peer);
        assert!(accepted.nodelay().unwrap());
        drop(client);
    }
}
