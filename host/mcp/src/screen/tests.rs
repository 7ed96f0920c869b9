#![allow(clippy::unwrap_used, clippy::panic)]
use serde_json::json;

use super::*;

/// What the client gets back: `None` when the message passes or is dropped.
fn answer(text: &str) -> Option<serde_json::Value> {
    match screen(text.as_bytes()) {
        Screened::Refuse(reply) => Some(serde_json::to_value(&reply).unwrap()),
        Screened::Pass(_) | Screened::Drop => None,
    }
}

#[test]
fn malformed_input_gets_the_json_rpc_code_that_names_it() {
    let call = |arguments: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"cancel_subscription","arguments":{arguments}}}}}"#
        )
    };
    let cases = [
        ("{not json".to_owned(), Some((-32700, None))),
        (String::new(), Some((-32700, None))),
        ("[1,2]".to_owned(), Some((-32600, None))),
        ("42".to_owned(), Some((-32600, None))),
        (call("[1,2]"), Some((-32602, Some(7)))),
        (call("\"x\""), Some((-32602, Some(7)))),
        (
            r#"{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":3}}"#.to_owned(),
            Some((-32602, Some(8))),
        ),
        (
            r#"{"jsonrpc":"2.0","id":"a","method":"tools/call","params":[1]}"#.to_owned(),
            Some((-32602, None)),
        ),
        (call("{\"service\":\"netflix\"}"), None),
        (call("{}"), None),
        (
            r#"{"jsonrpc":"2.0","id":9,"method":"tools/list"}"#.to_owned(),
            None,
        ),
        // A method of nobody's: rmcp answers it (method not found), unless
        // its params are not even an object.
        (
            r#"{"jsonrpc":"2.0","id":10,"method":"x/y","params":{}}"#.to_owned(),
            None,
        ),
        (
            r#"{"jsonrpc":"2.0","id":10,"method":"x/y","params":[1]}"#.to_owned(),
            Some((-32600, Some(10))),
        ),
        (
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.to_owned(),
            None,
        ),
        // A notification nobody can read is never answered.
        (
            r#"{"jsonrpc":"1.0","method":"notifications/cancelled"}"#.to_owned(),
            None,
        ),
        (
            "\u{feff}{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/list\"}".to_owned(),
            None,
        ),
    ];
    for (text, want) in cases {
        let text = text.as_str();
        let got = answer(text);
        match want {
            None => assert!(got.is_none(), "{text}: {got:?}"),
            Some((code, id)) => {
                let got = got.unwrap_or_else(|| panic!("{text} passed"));
                assert_eq!(got["error"]["code"], code, "{text}: {got}");
                if let Some(id) = id {
                    assert_eq!(got["id"], id, "{text}: {got}");
                }
            }
        }
    }
}

#[test]
fn an_array_of_arguments_says_what_arguments_must_be() {
    let reply = answer(
        &json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "browser_click", "arguments": [1, 2]}})
        .to_string(),
    )
    .unwrap();
    let message = reply["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("`arguments` must be an object"),
        "{message}"
    );
    assert_eq!(reply["error"]["data"]["method"], "tools/call");
}

#[test]
fn a_well_formed_message_passes_as_rmcp_reads_it() {
    let Screened::Pass(message) = screen(
        br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_services","arguments":{}}}"#,
    ) else {
        panic!("it should pass")
    };
    assert!(matches!(
        *message,
        ClientJsonRpcMessage::Request(ref r) if matches!(r.request, ClientRequest::CallToolRequest(_))
    ));
}
