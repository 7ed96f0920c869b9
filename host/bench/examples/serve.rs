//! Serves CancelBench on loopback, for any agent:
//! `cargo run -p subterminator-bench --example serve -- 127.0.0.1:8788`.
//! The interface is documented in the crate's README.

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let addr = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:8788".into());
    let listener = tokio::net::TcpListener::bind(&addr).await?;
    eprintln!("CancelBench on http://{}", listener.local_addr()?);
    subterminator_bench::serve::serve(listener).await?;
    Ok(())
}
