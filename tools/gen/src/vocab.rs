//! The words and weights synthetic scenarios are made of.

pub const TAGS: [&str; 50] = [
    "sanctions",
    "screening",
    "kyc",
    "aml",
    "payments",
    "fx",
    "invoices",
    "ledger",
    "reconciliation",
    "credit",
    "risk",
    "fraud",
    "onboarding",
    "identity",
    "documents",
    "ocr",
    "translation",
    "summarization",
    "search",
    "retrieval",
    "legal",
    "contracts",
    "compliance",
    "audit",
    "reporting",
    "tax",
    "payroll",
    "hr",
    "scheduling",
    "calendar",
    "email",
    "crm",
    "sales",
    "marketing",
    "support",
    "tickets",
    "billing",
    "shipping",
    "inventory",
    "procurement",
    "pricing",
    "forecasting",
    "analytics",
    "dashboards",
    "security",
    "incident",
    "monitoring",
    "deployment",
    "code-review",
    "testing",
];

pub const VERBS: [&str; 10] = [
    "screen",
    "check",
    "summarize",
    "extract",
    "route",
    "score",
    "draft",
    "review",
    "reconcile",
    "lookup",
];

pub const SCOPES: [&str; 12] = [
    "kyc:read",
    "sanctions:screen",
    "payments:write",
    "ledger:read",
    "documents:read",
    "hr:read",
    "crm:write",
    "billing:write",
    "security:admin",
    "audit:read",
    "tax:file",
    "support:write",
];

/// The default classification levels, lowest first; ranks are indices.
pub const LEVELS: [&str; 4] = ["public", "internal", "confidential", "restricted"];
/// Agents are mostly cleared high, callers' data mostly low: most sends pass classification.
pub const CLEARANCE_WEIGHTS: [usize; 4] = [5, 15, 40, 40];
pub const CLASSIFICATION_WEIGHTS: [usize; 4] = [30, 40, 25, 5];

pub const QUESTIONS: [&str; 6] = [
    "Which account should I use?",
    "Which date range do you mean?",
    "Please confirm the counterparty name.",
    "Should I include closed items?",
    "Which currency should the totals be in?",
    "Is this urgent?",
];

pub const PUSH_HOSTS: [&str; 2] = ["hooks.example.com", "*.hooks.example.net"];

/// Pass the host check of `PUSH_HOSTS` (the port does not matter; the parser lower-cases hosts).
pub const ALLOWED_PUSH_URLS: [&str; 5] = [
    "https://hooks.example.com/a2a",
    "https://hooks.example.com:8443/a2a/events",
    "https://eu.hooks.example.net/cb",
    "https://a.b.hooks.example.net/cb",
    "https://HOOKS.example.com/a2a",
];

/// Fail the host check, each for a different reason.
pub const REFUSED_PUSH_URLS: [&str; 8] = [
    "http://hooks.example.com/a2a",
    "https://hooks.example.net/cb",
    "https://evil.example.org/hook",
    "https://hooks.example.com@evil.test/",
    "https://hooks.example.com.evil.test/",
    "https://203.0.113.7/hook",
    "https://evil.test#hooks.example.com",
    "https://user:pw@hooks.example.com/a2a",
];

/// The longest caller `delegation_chain` generated (`gateway-N`, `upstream-N`); `max_depth` must
/// leave room for it.
pub const MAX_CALLER_CHAIN: usize = 2;
/// How far ahead (in same-tenant agents) a handler looks for someone to delegate to.
pub const DELEGATE_LOOKAHEAD: usize = 8;
