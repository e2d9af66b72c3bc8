// `@earendil-works/pi-ai/compat`: the provider-registration surface. pi's providers are its
// own (Rust); registering an API provider from an extension is accepted and not used, and
// streaming through the reference's built-in APIs is not available.
// What pi implements of `@earendil-works/pi-ai` is the same here.
export {
  StringEnum, uuidv7, calculateCost, collapseSystemMessages, getCurrentSystemPrompt, getCurrentTools,
  AssistantMessageEventStream, createAssistantMessageEventStream, ToolCallArgumentsStream,
} from "pi:ai";
const providers = new Map();
export function registerApiProvider(provider) {
  if (provider && provider.api) providers.set(provider.api, provider);
}
export function getApiProvider(api) {
  return providers.get(api);
}
function unsupported(name) {
  return () => {
    throw new Error(`${name}() is not supported by pi's extension engine`);
  };
}
export const streamSimple = unsupported("streamSimple");
export const anthropicMessagesApi = { api: "anthropic-messages", stream: unsupported("anthropicMessagesApi.stream") };
export const openAIResponsesApi = { api: "openai-responses", stream: unsupported("openAIResponsesApi.stream") };
export const openAICompletionsApi = { api: "openai-completions", stream: unsupported("openAICompletionsApi.stream") };

// The rest of what the reference exports here: stand-ins (js/surface/ai-compat.js).
export * from "pi:surface/ai-compat";
