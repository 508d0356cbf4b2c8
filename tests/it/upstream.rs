//! A fake GitLab for fault tests: a plain HTTP/1.1 (or HTTPS) server on 127.0.0.1, port 0,
//! one thread per connection, that answers each request as a test's handler says,
//! including answers a real server would never give: silence, a reset after reading a
//! POST, a flood of bytes, an HTML page. It records every request it read (method, path,
//! headers, body size) and whether a silent connection was closed by the client.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};

/// One request as the fake GitLab read it.
#[derive(Debug, Clone)]
pub struct Seen {
    pub method: String,
    pub path: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Seen {
    pub fn body_text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

impl Seen {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// How to answer.
pub enum Reply {
    Json(u16, String),
    With(u16, Vec<(String, String)>, Vec<u8>),
    Redirect(u16, String),
    Html,
    /// Say nothing until the client hangs up (or 30 s pass).
    Stall,
    /// Close the connection without an answer, after reading the whole request.
    Reset,
    /// A 200 whose body never ends: `bytes` of filler, no Content-Length.
    Flood(usize),
}

type Handler = dyn Fn(&Seen) -> Reply + Send + Sync;

pub struct Upstream {
    pub port: u16,
    pub tls: bool,
    seen: Arc<Mutex<Vec<Seen>>>,
    /// Connections accepted, TLS handshakes included.
    pub accepted: Arc<AtomicUsize>,
    /// When a stalled connection saw the client hang up, or a client closed the
    /// connection before a `With` body was all written.
    pub hung_up: Arc<Mutex<Option<Instant>>>,
    stop: Arc<AtomicBool>,
}

impl Upstream {
    pub fn start(handler: impl Fn(&Seen) -> Reply + Send + Sync + 'static) -> Self {
        Self::launch(None, Arc::new(handler))
    }

    pub fn start_tls(handler: impl Fn(&Seen) -> Reply + Send + Sync + 'static) -> Self {
        crate::support::install_crypto();
        let certs = CertificateDer::pem_slice_iter(include_bytes!("tls/server.pem"))
            .collect::<Result<Vec<_>, _>>()
            .unwrap();
        let key = PrivateKeyDer::from_pem_slice(include_bytes!("tls/server.key")).unwrap();
        let config = rustls::ServerConfig::builder()
            .with_no_client_auth()
            .with_single_cert(certs, key)
            .unwrap();
        Self::launch(Some(Arc::new(config)), Arc::new(handler))
    }

    fn launch(tls: Option<Arc<rustls::ServerConfig>>, handler: Arc<Handler>) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let upstream = Self {
            port,
            tls: tls.is_some(),
            seen: Arc::default(),
            accepted: Arc::default(),
            hung_up: Arc::default(),
            stop: Arc::default(),
        };
        let (seen, accepted, hung_up, stop) = (
            upstream.seen.clone(),
            upstream.accepted.clone(),
            upstream.hung_up.clone(),
            upstream.stop.clone(),
        );
        listener.set_nonblocking(true).unwrap();
        std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                match listener.accept() {
                    Ok((stream, _)) => {
                        stream.set_nonblocking(false).unwrap();
                        accepted.fetch_add(1, Ordering::Relaxed);
                        let (seen, hung_up, stop, handler, tls) = (
                            seen.clone(),
                            hung_up.clone(),
                            stop.clone(),
                            handler.clone(),
                            tls.clone(),
                        );
                        std::thread::spawn(move || {
                            let _ = serve(stream, tls, &*handler, &seen, &hung_up, &stop);
                        });
                    }
                    Err(_) => std::thread::sleep(Duration::from_millis(5)),
                }
            }
        });
        upstream
    }

    pub fn url(&self) -> String {
        let scheme = if self.tls { "https" } else { "http" };
        format!("{scheme}://127.0.0.1:{}", self.port)
    }

    pub fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
}

impl Drop for Upstream {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

trait Conn: Read + Write {
    fn tcp(&self) -> &TcpStream;
}

impl Conn for TcpStream {
    fn tcp(&self) -> &TcpStream {
        self
    }
}

impl Conn for rustls::StreamOwned<rustls::ServerConnection, TcpStream> {
    fn tcp(&self) -> &TcpStream {
        &self.sock
    }
}

fn serve(
    stream: TcpStream,
    tls: Option<Arc<rustls::ServerConfig>>,
    handler: &Handler,
    seen: &Mutex<Vec<Seen>>,
    hung_up: &Mutex<Option<Instant>>,
    stop: &AtomicBool,
) -> std::io::Result<()> {
    stream.set_read_timeout(Some(Duration::from_secs(30)))?;
    let mut conn: Box<dyn Conn> = match tls {
        Some(config) => {
            let session = rustls::ServerConnection::new(config).map_err(std::io::Error::other)?;
            Box::new(rustls::StreamOwned::new(session, stream))
        }
        None => Box::new(stream),
    };
    let Some(request) = read_request(&mut conn)? else {
        return Ok(());
    };
    seen.lock().unwrap().push(request.clone());
    match handler(&request) {
        Reply::Json(status, body) => respond(
            &mut conn,
            status,
            &[("content-type".into(), "application/json".into())],
            body.as_bytes(),
        ),
        Reply::With(status, headers, body) => {
            let sent = respond(&mut conn, status, &headers, &body);
            if sent.is_err() {
                // The client closed the connection before the whole body was written.
                *hung_up.lock().unwrap() = Some(Instant::now());
            }
            sent
        }
        Reply::Redirect(status, location) => {
            respond(&mut conn, status, &[("location".into(), location)], b"")
        }
        Reply::Html => respond(
            &mut conn,
            200,
            &[("content-type".into(), "text/html; charset=utf-8".into())],
            b"<!DOCTYPE html>\n<html><head><title>Sign in</title></head><body>Sign in to GitLab</body></html>\n",
        ),
        Reply::Stall => {
            let tcp = conn.tcp().try_clone()?;
            tcp.set_read_timeout(Some(Duration::from_millis(50)))?;
            let started = Instant::now();
            let mut byte = [0_u8; 1];
            while started.elapsed() < Duration::from_secs(30) && !stop.load(Ordering::Relaxed) {
                match (&tcp).read(&mut byte) {
                    Ok(0) => {
                        *hung_up.lock().unwrap() = Some(Instant::now());
                        break;
                    }
                    Ok(_) => {}
                    Err(e)
                        if matches!(
                            e.kind(),
                            std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                        ) => {}
                    Err(_) => {
                        *hung_up.lock().unwrap() = Some(Instant::now());
                        break;
                    }
                }
            }
            Ok(())
        }
        Reply::Reset => {
            let tcp = conn.tcp();
            let _ = tcp.shutdown(Shutdown::Both);
            Ok(())
        }
        Reply::Flood(bytes) => {
            conn.write_all(
                b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nconnection: close\r\n\r\n",
            )?;
            let chunk = vec![b'x'; 64 * 1024];
            let mut sent = 0;
            while sent < bytes {
                if conn.write_all(&chunk).is_err() {
                    break;
                }
                sent += chunk.len();
            }
            Ok(())
        }
    }
}

fn read_request(conn: &mut Box<dyn Conn>) -> std::io::Result<Option<Seen>> {
    let mut reader = BufReader::new(conn);
    let mut line = String::new();
    if reader.read_line(&mut line)? == 0 {
        return Ok(None);
    }
    let mut parts = line.split_whitespace();
    let method = parts.next().unwrap_or_default().to_owned();
    let path = parts.next().unwrap_or_default().to_owned();
    let mut headers = Vec::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 {
            break;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':') {
            headers.push((name.trim().to_owned(), value.trim().to_owned()));
        }
    }
    let length: usize = headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case("content-length"))
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    let mut body = vec![0; length];
    reader.read_exact(&mut body)?;
    Ok(Some(Seen {
        method,
        path,
        headers,
        body,
    }))
}

fn respond(
    conn: &mut Box<dyn Conn>,
    status: u16,
    headers: &[(String, String)],
    body: &[u8],
) -> std::io::Result<()> {
    let mut head = format!(
        "HTTP/1.1 {status} X\r\ncontent-length: {}\r\nconnection: close\r\n",
        body.len()
    );
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    conn.write_all(head.as_bytes())?;
    conn.write_all(body)?;
    conn.flush()
}
