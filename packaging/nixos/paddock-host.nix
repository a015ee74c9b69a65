# paddock host on NixOS (docs/host.md): the same host.toml, agent users, state directories,
# wrappers and sudoers rules that `paddock host install` makes on other systems, declared.
#
#   imports = [ ./paddock-host.nix ];
#   services.paddock-host = {
#     enable = true;
#     package = pkgs.paddock;
#     agents.pi = { binary = "/opt/pi/bin/pi"; hideDir = "/opt/pi"; configSource = ".pi/agent";
#                   env.PI_TELEMETRY = "0"; settings.theme = "dark"; };
#     users.alice.roots = [ "~/src" "/srv/projects/alice" ];
#   };
#
# Options mirror host.toml's keys (camelCase here, snake_case there). Not tested on this project's
# CI machine (Debian): only the generic install is. The Nix store is world-readable, so an agent
# binary inside it cannot be hidden by permissions: point `binary` at a copy outside the store
# (hideDir 0750 root:<group>, made by the activation script below), or accept that the module only
# keeps it off users' PATH (`paddock host check` reports it).
{ config, lib, pkgs, ... }:

let
  cfg = config.services.paddock-host;
  inherit (lib) mkOption mkEnableOption mkIf types mapAttrs' nameValuePair mapAttrsToList concatStringsSep
    concatMapStringsSep filterAttrs optionalAttrs;
  toml = pkgs.formats.toml { };
  configPath = "/etc/paddock/host.toml";
  paddock = "${cfg.package}/bin/paddock";

  rootType = types.either types.str (types.submodule {
    options = {
      path = mkOption { type = types.str; };
      allowBroad = mkOption { type = types.bool; default = false; description = "Allow / or a whole home."; };
    };
  });

  agentType = types.submodule ({ name, ... }: {
    options = {
      binary = mkOption { type = types.str; description = "The real agent (absolute)."; };
      hideDir = mkOption { type = types.nullOr types.str; default = null; };
      command = mkOption { type = types.str; default = name; };
      user = mkOption { type = types.str; default = "${name}-agent"; };
      group = mkOption { type = types.nullOr types.str; default = null; description = "Default: the user's name."; };
      stateDir = mkOption { type = types.str; default = "/var/lib/paddock/agents/${name}"; };
      configSource = mkOption { type = types.str; default = ".${name}"; };
      settingsFile = mkOption { type = types.str; default = "settings.json"; };
      userEnvFile = mkOption { type = types.str; default = "paddock.env"; };
      envFiles = mkOption { type = types.listOf types.str; default = [ ]; };
      env = mkOption { type = types.attrsOf types.str; default = { }; };
      settings = mkOption { type = toml.type; default = { }; };
      users = mkOption { type = types.nullOr (types.listOf types.str); default = null; };
      profile = mkOption { type = types.nullOr types.str; default = null; };
      network = mkOption { type = types.nullOr (types.enum [ "off" "on" ]); default = null; };
      passEnv = mkOption { type = types.nullOr (types.listOf types.str); default = null; };
    };
  });

  userType = types.submodule {
    options = {
      roots = mkOption { type = types.listOf rootType; };
      configSource = mkOption { type = types.nullOr types.str; default = null; };
    };
  };

  groupOf = a: if a.group != null then a.group else a.user;
  allowed = a: if a.users != null then a.users else lib.attrNames cfg.users;
  nonNull = filterAttrs (_: v: v != null);

  hostToml = toml.generate "host.toml" {
    host = { inherit paddock; wrapper_dir = "/run/current-system/sw/bin"; };
    agents = lib.mapAttrs (name: a: nonNull {
      inherit (a) binary command user env settings profile network;
      hide_dir = a.hideDir;
      group = groupOf a;
      state_dir = a.stateDir;
      config_source = a.configSource;
      settings_file = a.settingsFile;
      user_env_file = a.userEnvFile;
      env_files = a.envFiles;
      users = a.users;
      pass_env = a.passEnv;
    }) cfg.agents;
    users = lib.mapAttrs (_: u: nonNull {
      roots = map (r: if builtins.isString r then r else { inherit (r) path; allow_broad = r.allowBroad; }) u.roots;
      config_source = u.configSource;
    }) cfg.users;
  };

  passEnv = a: if a.passEnv != null then a.passEnv else [ "TERM" "COLORTERM" "LANG" "LANGUAGE" "LC_*" "TZ" "NO_COLOR" ];
  alias = name: "PADDOCK_HOST_" + lib.toUpper (lib.replaceStrings [ "-" ] [ "_" ] name);
  runner = name: "${paddock} host runner --config ${configPath} ${name} --";
  # The same rule `paddock host install` writes (src/host/render.cc).
  sudoersRule = name: a: ''
    Cmnd_Alias ${alias name} = ${runner name}, \
        ${runner name} *
    Defaults!${alias name} env_reset, !setenv, env_keep = "${concatStringsSep " " (passEnv a)}"
    ${concatStringsSep ", " (allowed a)} ALL = (root) NOPASSWD: ${alias name}
  '';
  # The same text as `paddock host install`'s wrapper (src/host/render.cc).
  wrapper = name: a: pkgs.writeTextFile {
    name = "paddock-host-${a.command}";
    executable = true;
    destination = "/bin/${a.command}";
    text = ''
      #!/bin/sh
      # ${a.command}: generated by `paddock host install` from ${configPath} (agent ${name}).
      # The agent runs as ${a.user} in a paddock sandbox, in the current project only;
      # `paddock host explain` says which roots, config and env apply to you.
      exec ${paddock} host wrap --config ${configPath} ${name} -- "$@"
    '';
  };
in
{
  options.services.paddock-host = {
    enable = mkEnableOption "paddock host: agents as their own users, reached through a wrapper";
    package = mkOption { type = types.package; description = "The paddock package."; };
    agents = mkOption { type = types.attrsOf agentType; default = { }; };
    users = mkOption { type = types.attrsOf userType; default = { }; };
  };

  config = mkIf cfg.enable {
    assertions = lib.flatten (mapAttrsToList (name: a: [
      { assertion = allowed a != [ ]; message = "paddock-host: agent ${name} has no allowed users"; }
    ]) cfg.agents) ++ mapAttrsToList (name: u: {
      assertion = u.roots != [ ]; message = "paddock-host: user ${name} has an empty roots list";
    }) cfg.users;

    environment.etc = { "paddock/host.toml" = { source = hostToml; mode = "0644"; }; }
      // mapAttrs' (name: a: nameValuePair "sudoers.d/paddock-${name}" {
        text = sudoersRule name a; mode = "0440";
      }) cfg.agents;
    security.sudo.enable = true;
    security.sudo.extraConfig = "@includedir /etc/sudoers.d\n";
    environment.systemPackages = [ cfg.package ] ++ mapAttrsToList wrapper cfg.agents;

    users.groups = mapAttrs' (_: a: nameValuePair (groupOf a) { }) cfg.agents;
    users.users = mapAttrs' (name: a: nameValuePair a.user {
      isSystemUser = true; group = groupOf a; home = a.stateDir; createHome = false;
      description = "paddock host: agent ${name}";
    }) cfg.agents;

    systemd.tmpfiles.rules = lib.flatten (mapAttrsToList (_: a: [
      "d ${a.stateDir} 0750 root ${groupOf a} -"
      "d ${a.stateDir}/users 0750 root ${groupOf a} -"
    ]) cfg.agents);

    # A hideDir outside the store: root:<group> 0750, as install makes it.
    system.activationScripts.paddock-host-hide = concatStringsSep "\n" (mapAttrsToList (_: a:
      lib.optionalString (a.hideDir != null) ''
        if [ -d ${a.hideDir} ]; then chown root:${groupOf a} ${a.hideDir}; chmod 0750 ${a.hideDir}; fi
      '') cfg.agents);
  };
}
