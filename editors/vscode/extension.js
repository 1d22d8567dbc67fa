// The VS Code side of woc lsp: starts `woc lsp` (the wo.server.path setting)
// over stdio for every .wo document and restarts it when the setting changes.
// Everything else (diagnostics, hover, definition, outline, completion,
// formatting) is the language server's; see tools/woc/lsp/README.md.
'use strict';

const vscode = require('vscode');
const { LanguageClient, TransportKind } = require('vscode-languageclient/node');

let client;

function serverOptions() {
  const config = vscode.workspace.getConfiguration('wo');
  const command = config.get('server.path') || 'woc';
  const args = ['lsp', ...(config.get('server.extraArgs') || [])];
  return { command, args, transport: TransportKind.stdio };
}

async function start(context) {
  const clientOptions = {
    documentSelector: [{ language: 'wo' }],
    synchronize: {
      // Sibling files of a program change on disk too: the server reloads them on the next edit.
      fileEvents: vscode.workspace.createFileSystemWatcher('**/{*.wo,wo.toml}'),
    },
  };
  client = new LanguageClient('wo', 'wo language server', serverOptions(), clientOptions);
  await client.start();
  context.subscriptions.push(client);
}

async function activate(context) {
  await start(context);
  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration(async (e) => {
      if (!e.affectsConfiguration('wo.server')) return;
      if (client) await client.stop();
      await start(context);
    }));
}

async function deactivate() {
  if (client) await client.stop();
}

module.exports = { activate, deactivate };
