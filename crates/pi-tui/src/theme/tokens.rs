//! The colour roles a theme assigns (the names theme files use).

/// Whether a role colours text or a background.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Slot {
    /// A text colour.
    Fg,
    /// A background colour.
    Bg,
}

macro_rules! tokens {
    ($($variant:ident $name:literal $slot:ident $fallback:expr;)*) => {
        /// A colour role.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[allow(missing_docs)]
        pub enum Token { $($variant,)* }

        impl Token {
            /// Every role, in theme-file order.
            pub const ALL: &'static [Token] = &[$(Token::$variant,)*];
            /// The name theme files use.
            pub fn name(self) -> &'static str {
                match self { $(Token::$variant => $name,)* }
            }
            /// Text or background.
            pub fn slot(self) -> Slot {
                match self { $(Token::$variant => Slot::$slot,)* }
            }
            /// The role an optional role falls back to when a theme omits it.
            pub fn fallback(self) -> Option<Token> {
                match self { $(Token::$variant => $fallback,)* }
            }
        }
    };
}

tokens! {
    Accent "accent" Fg None;
    Border "border" Fg None;
    BorderAccent "borderAccent" Fg None;
    BorderMuted "borderMuted" Fg None;
    Success "success" Fg None;
    Error "error" Fg None;
    Warning "warning" Fg None;
    Muted "muted" Fg None;
    Dim "dim" Fg None;
    Text "text" Fg None;
    ThinkingText "thinkingText" Fg None;
    ScrollbarTrack "scrollbarTrack" Fg Some(Token::Muted);
    ScrollbarThumb "scrollbarThumb" Fg Some(Token::Text);
    SelectedBg "selectedBg" Bg None;
    SearchMatchBg "searchMatchBg" Bg Some(Token::SelectedBg);
    SearchMatchText "searchMatchText" Fg Some(Token::Text);
    UserMessageBg "userMessageBg" Bg None;
    UserMessageText "userMessageText" Fg None;
    CustomMessageBg "customMessageBg" Bg None;
    CustomMessageText "customMessageText" Fg None;
    CustomMessageLabel "customMessageLabel" Fg None;
    ToolPendingBg "toolPendingBg" Bg None;
    ToolSuccessBg "toolSuccessBg" Bg None;
    ToolErrorBg "toolErrorBg" Bg None;
    ToolTitle "toolTitle" Fg None;
    ToolOutput "toolOutput" Fg None;
    MdHeading "mdHeading" Fg None;
    MdLink "mdLink" Fg None;
    MdLinkUrl "mdLinkUrl" Fg None;
    MdCode "mdCode" Fg None;
    MdCodeBlock "mdCodeBlock" Fg None;
    MdCodeBlockBorder "mdCodeBlockBorder" Fg None;
    MdQuote "mdQuote" Fg None;
    MdQuoteBorder "mdQuoteBorder" Fg None;
    MdHr "mdHr" Fg None;
    MdListBullet "mdListBullet" Fg None;
    ToolDiffAdded "toolDiffAdded" Fg None;
    ToolDiffRemoved "toolDiffRemoved" Fg None;
    ToolDiffContext "toolDiffContext" Fg None;
    SyntaxComment "syntaxComment" Fg None;
    SyntaxKeyword "syntaxKeyword" Fg None;
    SyntaxFunction "syntaxFunction" Fg None;
    SyntaxVariable "syntaxVariable" Fg None;
    SyntaxString "syntaxString" Fg None;
    SyntaxNumber "syntaxNumber" Fg None;
    SyntaxType "syntaxType" Fg None;
    SyntaxOperator "syntaxOperator" Fg None;
    SyntaxPunctuation "syntaxPunctuation" Fg None;
    ThinkingOff "thinkingOff" Fg None;
    ThinkingMinimal "thinkingMinimal" Fg None;
    ThinkingLow "thinkingLow" Fg None;
    ThinkingMedium "thinkingMedium" Fg None;
    ThinkingHigh "thinkingHigh" Fg None;
    ThinkingXhigh "thinkingXhigh" Fg None;
    ThinkingMax "thinkingMax" Fg Some(Token::ThinkingXhigh);
    BashMode "bashMode" Fg None;
}

impl Token {
    /// The role of a name, if it is one.
    pub fn from_name(name: &str) -> Option<Token> {
        Token::ALL.iter().copied().find(|t| t.name() == name)
    }

    /// The border colour of a thinking level.
    pub fn for_thinking(level: &str) -> Token {
        match level {
            "minimal" => Token::ThinkingMinimal,
            "low" => Token::ThinkingLow,
            "medium" => Token::ThinkingMedium,
            "high" => Token::ThinkingHigh,
            "xhigh" => Token::ThinkingXhigh,
            "max" => Token::ThinkingMax,
            _ => Token::ThinkingOff,
        }
    }
}

/// The keys of a theme file's `export` object.
pub const EXPORT_KEYS: &[&str] = &["pageBg", "cardBg", "infoBg"];
