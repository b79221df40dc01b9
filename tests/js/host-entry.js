// Test host: the official MCP Apps host side, exposed to the test page.
import { AppBridge, PostMessageTransport } from "@modelcontextprotocol/ext-apps/app-bridge";
window.McpHost = { AppBridge, PostMessageTransport };
