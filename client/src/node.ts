/**
 * @persona-reply/client/node — the Node-only part of the client package: the
 * profile store of the `persona` tool (docs/API.md §4.4), for the tool itself, the
 * MCP server and a browser login that saves a key. Every export of this file
 * is public.
 */

export {
  activeProfile,
  checkProfileName,
  DEFAULT_PROFILE_NAME,
  loadProfiles,
  type NamedProfile,
  type ProfileStoreOptions,
  type Profiles,
  type ProfileUpdate,
  type ProfileValues,
  removeProfile,
  saveProfile,
  setActiveProfile,
} from "./profiles/profile-store.js";
export {
  CONFIG_FOLDER_NAME,
  configDirectory,
  PROFILES_FILE_NAME,
  profilesFilePath,
} from "./profiles/profiles-file-path.js";
export {
  type ResolvedSettings,
  type ResolveSettingsInput,
  resolveSettings,
  type SettingSource,
  type SettingsFlags,
} from "./profiles/resolve-settings.js";
