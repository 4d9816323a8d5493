//! `pgpage serve`: the app it carries is the repository's built dist/, file for file, served on
//! 127.0.0.1 with the page's own Content-Security-Policy as a header; other hosts, methods and
//! paths are refused. The expected bytes are dist/'s own, read here from disk.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

struct Served {
    child: Child,
    port: u16,
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn serve() -> Served {
    let mut child = Command::new(env!("CARGO_BIN_EXE_pgpage"))
        .args(["serve", "--port", "0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    let at = first
        .find("http://127.0.0.1:")
        .unwrap_or_else(|| panic!("no loopback address in {first:?}"));
    let port = first[at + "http://127.0.0.1:".len()..]
        .trim_end()
        .trim_end_matches('/')
        .parse()
        .unwrap();
    Served { child, port }
}

struct Got {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Got {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// One HTTP/1.1 request, the connection closed after it; the body read to its
/// Content-Length.
fn request(port: u16, method: &str, path: &str, host: &str) -> Got {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    write!(
        s,
        "{method} {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).unwrap();
    let split = raw.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
    let head = String::from_utf8(raw[..split].to_vec()).unwrap();
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .unwrap()
        .split(' ')
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_owned(), v.trim().to_owned()))
        .collect();
    let body = raw[split + 4..].to_vec();
    Got {
        status,
        headers,
        body,
    }
}

fn dist() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../dist")
}

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            files(&p, out);
        } else {
            out.push(p);
        }
    }
}

#[test]
fn serve_gives_every_built_file_with_the_pages_policy_and_refuses_the_rest() {
    let root = dist();
    assert!(
        root.join("index.html").is_file(),
        "dist/ is built before the CLI (scripts/build.sh)"
    );
    let s = serve();
    let host = format!("127.0.0.1:{}", s.port);

    let index = std::fs::read(root.join("index.html")).unwrap();
    let html = String::from_utf8(index.clone()).unwrap();
    let meta = "http-equiv=\"Content-Security-Policy\" content=\"";
    let at = html.find(meta).unwrap() + meta.len();
    let policy = &html[at..at + html[at..].find('"').unwrap()];
    assert!(policy.contains("connect-src 'self'"), "{policy}");

    let page = request(s.port, "GET", "/", &host);
    assert_eq!(page.status, 200);
    assert_eq!(page.body, index);
    assert_eq!(
        page.header("Content-Type"),
        Some("text/html; charset=utf-8")
    );
    assert_eq!(page.header("Content-Security-Policy"), Some(policy));
    assert_eq!(page.header("Cache-Control"), Some("no-cache"));
    // By the name localhost too, as a browser on the other end of an SSH tunnel may say.
    let local = request(s.port, "GET", "/", &format!("localhost:{}", s.port));
    assert_eq!(local.status, 200);

    // Every file vite wrote, byte for byte, each with the policy.
    let mut all = Vec::new();
    files(&root, &mut all);
    assert!(all.len() > 10, "{all:?}");
    let mut wasm = 0;
    for f in &all {
        let name = f
            .strip_prefix(&root)
            .unwrap()
            .to_str()
            .unwrap()
            .replace('\\', "/");
        let got = request(s.port, "GET", &format!("/{name}?v=1"), &host);
        assert_eq!(got.status, 200, "{name}");
        assert!(got.body == std::fs::read(f).unwrap(), "{name} differs");
        assert_eq!(
            got.header("Content-Security-Policy"),
            Some(policy),
            "{name}"
        );
        assert_eq!(got.header("X-Content-Type-Options"), Some("nosniff"));
        if name.ends_with(".wasm") {
            wasm += 1;
            assert_eq!(got.header("Content-Type"), Some("application/wasm"));
        }
        if name.ends_with(".js") {
            assert!(
                got.header("Content-Type").unwrap().contains("javascript"),
                "{name}"
            );
        }
    }
    assert!(wasm > 0, "the core's wasm is among the files");
    let head = request(s.port, "HEAD", "/", &host);
    assert_eq!(head.status, 200);
    assert!(head.body.is_empty());
    assert_eq!(
        head.header("Content-Length"),
        Some(index.len().to_string().as_str())
    );

    // Another site's page, pointed here by its own DNS name, gets nothing.
    assert_eq!(request(s.port, "GET", "/", "attacker.example").status, 421);
    assert_eq!(request(s.port, "POST", "/", &host).status, 405);
    assert_eq!(request(s.port, "GET", "/../Cargo.toml", &host).status, 404);
    assert_eq!(
        request(s.port, "GET", "/no-such-file.js", &host).status,
        404
    );
}

#[test]
fn serve_refuses_a_port_in_use() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port().to_string();
    let out = Command::new(env!("CARGO_BIN_EXE_pgpage"))
        .args(["serve", "--port", &port])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.starts_with(&format!(
            "pgpage: error: could not listen on 127.0.0.1:{port}: "
        )),
        "{err}"
    );
}

/// `pgpage --version` names the commit the binary was built from, as the served app's footer
/// does: a report pasted into a ticket says which build made it.
#[test]
fn version_names_the_commit() {
    let out = crate::common::pgpage(&["--version"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let head = std::process::Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .output()
        .unwrap();
    let head = String::from_utf8_lossy(&head.stdout).trim().to_owned();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        format!("pgpage {} (commit {head})", env!("CARGO_PKG_VERSION"))
    );
}
