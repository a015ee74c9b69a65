#!/bin/bash
# Runs inside the container (as its user, paddock 65532): doctor's verdict, a sandboxed run that
# writes to the project and tries a secret, and one MCP call over stdio. Prints KEY=VALUE lines
# for tests/container/run.sh to check, with the raw outputs after a marker.
cd "$HOME"
mkdir -p proj .ssh
echo s3cret-in-home > .ssh/id_ed25519
paddock doctor > doctor.txt 2>&1
echo "verdict=$(sed -n 's/^`paddock run` will use: //p' doctor.txt)"
echo "userns=$(sed -n 's/^  user namespaces: *//p' doctor.txt)"
cd proj
# In its own namespaces the command sees paddock's init as pid 1 and the hostname "paddock";
# in the fallback, the container's.
paddock run -- sh -c 'echo inside-ok; cat ~/.ssh/id_ed25519; echo written > out.txt; echo "seen=$(cat /proc/1/comm)@$(uname -n)"' > run.out 2> run.err
echo "run_rc=$?"
paddock run --require-namespaces -- sh -c 'echo required-ran' > req.out 2> req.err
echo "required_rc=$? required_ran=$(cat req.out)"
echo "written=$(cat out.txt 2>/dev/null)"
printf '%s\n' \
  '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}' \
  '{"jsonrpc":"2.0","method":"notifications/initialized"}' \
  '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"execute","arguments":{"environment":"python","code":"print(6*7)"}}}' \
  | timeout 60 paddock mcp --config /etc/paddock/mcp.toml > mcp.out 2> mcp.err
echo "mcp_rc=$?"
echo "mcp_answer=$(grep -o '"stdout":"[^"]*"' mcp.out | head -1)"
echo "mcp_error=$(grep -o '"error":"[^"]*"' mcp.out | head -1)"
echo "----- doctor"; cat "$HOME/doctor.txt"
echo "----- run.out"; cat run.out
echo "----- run.err"; cat run.err
echo "----- req.err"; cat req.err
echo "----- mcp.err"; cat mcp.err
