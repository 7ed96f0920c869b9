//! The names of Playwright MCP's tools that the host calls or lets a model
//! call, in one place: the client, both toolsets and the read-only
//! lists use these, so a renamed tool in a new server release is one edit.

pub const NAVIGATE: &str = "browser_navigate";
pub const NAVIGATE_BACK: &str = "browser_navigate_back";
pub const SNAPSHOT: &str = "browser_snapshot";
pub const CLICK: &str = "browser_click";
pub const TYPE: &str = "browser_type";
pub const SELECT_OPTION: &str = "browser_select_option";
pub const HOVER: &str = "browser_hover";
pub const PRESS_KEY: &str = "browser_press_key";
pub const WAIT_FOR: &str = "browser_wait_for";
pub const TAKE_SCREENSHOT: &str = "browser_take_screenshot";
pub const PDF_SAVE: &str = "browser_pdf_save";
pub const TABS: &str = "browser_tabs";
pub const HANDLE_DIALOG: &str = "browser_handle_dialog";
pub const EVALUATE: &str = "browser_evaluate";
pub const CLOSE: &str = "browser_close";
