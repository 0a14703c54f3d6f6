# CustomTabs: which browser to use, the one call of its Custom Tabs service the launcher makes
# (newSession, a raw Binder transaction since androidx.browser cannot be compiled in), and the
# intent that opens a Custom Tab or, with a session, a Trusted Web Activity.
# Dalvik assembly like LauncherActivity, checked statically (test/bin/apk.test.ts), not on a phone.
#
# Sources (androidx/androidx, browser/browser/src/main/…):
#   java/androidx/browser/customtabs/CustomTabsService.java: ACTION_CUSTOM_TABS_CONNECTION =
#     "android.support.customtabs.action.CustomTabsService", TRUSTED_WEB_ACTIVITY_CATEGORY =
#     "androidx.browser.trusted.category.TrustedWebActivities" (a browser's service says it does
#     TWAs with it; GoogleChrome/android-browser-helper TwaProviderPicker picks by it).
#   java/androidx/browser/customtabs/CustomTabsClient.java getPackageName(): the default VIEW
#     handler first if it has the service, resolveService(Intent(ACTION).setPackage(p), 0).
#   stableAidl/android/support/customtabs/ICustomTabsService.aidl: descriptor
#     "android.support.customtabs.ICustomTabsService", `boolean newSession(in ICustomTabsCallback
#     callback) = 2;`. AIDL numbers a transaction FIRST_CALL_TRANSACTION (1) + its id, so code 3
#     (the generated Stub: TRANSACTION_warmup = 2, TRANSACTION_newSession = 3). Data: the interface
#     token, then the callback as a strong binder; reply: writeNoException(), then the boolean as
#     an int.
#   java/androidx/browser/customtabs/CustomTabsIntent.java: EXTRA_SESSION =
#     "android.support.customtabs.extra.SESSION" ("This has to be included in the intent to open
#     in a custom tab. This is the same IBinder that gets passed to ICustomTabsService#newSession"),
#     put with Bundle.putBinder by Builder.setSessionParameters, null when there is no session;
#     Builder.setSession also calls setPackage(the session's browser). EXTRA_TOOLBAR_COLOR =
#     "android.support.customtabs.extra.TOOLBAR_COLOR" (an ARGB int, also the status bar).
#   java/androidx/browser/customtabs/CustomTabsClient.java newSession(): the session is the
#     ICustomTabsCallback binder sent (CustomTabsSession.getBinder()). A plain android.os.Binder
#     serves: the browser keys the session on it and links to its death; the callbacks it makes on
#     it (navigation events) are answered "not handled", which the browser ignores.

.class final Lpetal/dispatch/twa/CustomTabs;
.super Ljava/lang/Object;


# defaultBrowser(context): the package that answers VIEW https:// by default (MATCH_DEFAULT_ONLY),
# as CustomTabsClient.getPackageName does; null when none. With no default chosen this is the
# system's chooser ("android"), which has no Custom Tabs service, so provider() passes over it. The
# URI has no host, so the app's own filter (host TWA_HOST) never answers it.
.method static defaultBrowser(Landroid/content/Context;)Ljava/lang/String;
    .locals 3
    # v0 = new Intent(ACTION_VIEW, Uri.parse("https://")).addCategory(CATEGORY_BROWSABLE)
    new-instance v0, Landroid/content/Intent;
    const-string v1, "android.intent.action.VIEW"
    const-string v2, "https://"
    invoke-static {v2}, Landroid/net/Uri;->parse(Ljava/lang/String;)Landroid/net/Uri;
    move-result-object v2
    invoke-direct {v0, v1, v2}, Landroid/content/Intent;-><init>(Ljava/lang/String;Landroid/net/Uri;)V
    const-string v1, "android.intent.category.BROWSABLE"
    invoke-virtual {v0, v1}, Landroid/content/Intent;->addCategory(Ljava/lang/String;)Landroid/content/Intent;
    # v0 = context.getPackageManager().resolveActivity(v0, MATCH_DEFAULT_ONLY = 0x10000)
    invoke-virtual {p0}, Landroid/content/Context;->getPackageManager()Landroid/content/pm/PackageManager;
    move-result-object v1
    const v2, 0x10000
    invoke-virtual {v1, v0, v2}, Landroid/content/pm/PackageManager;->resolveActivity(Landroid/content/Intent;I)Landroid/content/pm/ResolveInfo;
    move-result-object v0
    if-eqz v0, :none
    # return v0.activityInfo.packageName
    iget-object v0, v0, Landroid/content/pm/ResolveInfo;->activityInfo:Landroid/content/pm/ActivityInfo;
    if-eqz v0, :none
    iget-object v0, v0, Landroid/content/pm/ActivityInfo;->packageName:Ljava/lang/String;
    return-object v0
    :none
    # (a fresh null: the verifier types v0 here as a ResolveInfo or ActivityInfo, not a String)
    const/4 v0, 0x0
    return-object v0
.end method


# provider(context, category, preferred): a package with a Custom Tabs service (carrying
# `category` when it is not null): `preferred` if it has one, else the PackageManager's best match,
# else null.
.method static provider(Landroid/content/Context;Ljava/lang/String;Ljava/lang/String;)Ljava/lang/String;
    .locals 3
    invoke-virtual {p0}, Landroid/content/Context;->getPackageManager()Landroid/content/pm/PackageManager;
    move-result-object v0
    # v1 = new Intent(ACTION_CUSTOM_TABS_CONNECTION), plus the category when given
    new-instance v1, Landroid/content/Intent;
    const-string v2, "android.support.customtabs.action.CustomTabsService"
    invoke-direct {v1, v2}, Landroid/content/Intent;-><init>(Ljava/lang/String;)V
    if-eqz p1, :any_category
    invoke-virtual {v1, p1}, Landroid/content/Intent;->addCategory(Ljava/lang/String;)Landroid/content/Intent;
    :any_category
    if-eqz p2, :any_package
    # The preferred package first: resolveService(v1.setPackage(preferred), 0) != null
    invoke-virtual {v1, p2}, Landroid/content/Intent;->setPackage(Ljava/lang/String;)Landroid/content/Intent;
    const/4 v2, 0x0
    invoke-virtual {v0, v1, v2}, Landroid/content/pm/PackageManager;->resolveService(Landroid/content/Intent;I)Landroid/content/pm/ResolveInfo;
    move-result-object v2
    if-eqz v2, :not_preferred
    return-object p2
    :not_preferred
    # v1.setPackage(null): any package
    const/4 v2, 0x0
    invoke-virtual {v1, v2}, Landroid/content/Intent;->setPackage(Ljava/lang/String;)Landroid/content/Intent;
    :any_package
    # v2 = resolveService(v1, 0), null when no package has such a service
    const/4 v2, 0x0
    invoke-virtual {v0, v1, v2}, Landroid/content/pm/PackageManager;->resolveService(Landroid/content/Intent;I)Landroid/content/pm/ResolveInfo;
    move-result-object v2
    if-eqz v2, :none
    # return v2.serviceInfo.packageName
    iget-object v2, v2, Landroid/content/pm/ResolveInfo;->serviceInfo:Landroid/content/pm/ServiceInfo;
    iget-object v2, v2, Landroid/content/pm/ServiceInfo;->packageName:Ljava/lang/String;
    return-object v2
    :none
    # (a fresh null: the verifier types v2 here as a ResolveInfo, not a String)
    const/4 v2, 0x0
    return-object v2
.end method


# newSession(service, callback): ICustomTabsService.newSession(callback) on the bound service;
# true when the browser created the session, false when it said no, did not handle the call, threw
# (SecurityException…) or died (RemoteException).
.method static newSession(Landroid/os/IBinder;Landroid/os/IBinder;)Z
    .locals 5
    # v0 = data, v1 = reply
    invoke-static {}, Landroid/os/Parcel;->obtain()Landroid/os/Parcel;
    move-result-object v0
    invoke-static {}, Landroid/os/Parcel;->obtain()Landroid/os/Parcel;
    move-result-object v1
    :call_start
    # data.writeInterfaceToken("android.support.customtabs.ICustomTabsService")
    const-string v2, "android.support.customtabs.ICustomTabsService"
    invoke-virtual {v0, v2}, Landroid/os/Parcel;->writeInterfaceToken(Ljava/lang/String;)V
    # data.writeStrongBinder(callback)
    invoke-virtual {v0, p1}, Landroid/os/Parcel;->writeStrongBinder(Landroid/os/IBinder;)V
    # v3 = service.transact(3 = TRANSACTION_newSession, data, reply, flags 0): was it handled?
    const/4 v2, 0x3
    const/4 v3, 0x0
    invoke-interface {p0, v2, v0, v1, v3}, Landroid/os/IBinder;->transact(ILandroid/os/Parcel;Landroid/os/Parcel;I)Z
    move-result v3
    if-eqz v3, :call_end
    # reply.readException() rethrows what newSession threw; then v3 = its boolean (1 = created)
    invoke-virtual {v1}, Landroid/os/Parcel;->readException()V
    invoke-virtual {v1}, Landroid/os/Parcel;->readInt()I
    move-result v3
    :call_end
    .catch Ljava/lang/Exception; {:call_start .. :call_end} :call_failed
    goto :recycle
    :call_failed
    const/4 v3, 0x0
    :recycle
    invoke-virtual {v0}, Landroid/os/Parcel;->recycle()V
    invoke-virtual {v1}, Landroid/os/Parcel;->recycle()V
    # return v3 != 0
    if-eqz v3, :refused
    const/4 v4, 0x1
    return v4
    :refused
    const/4 v4, 0x0
    return v4
.end method


# tabIntent(context, uri, provider, session): the Custom Tab intent as CustomTabsIntent.Builder
# builds it: VIEW uri in `provider`, EXTRA_SESSION = session (null for a plain Custom Tab), and the
# toolbar (and status bar) in the web manifest's theme_color.
.method static tabIntent(Landroid/content/Context;Landroid/net/Uri;Ljava/lang/String;Landroid/os/IBinder;)Landroid/content/Intent;
    .locals 5
    # v0 = new Intent(ACTION_VIEW, uri).setPackage(provider): the browser the session belongs to
    new-instance v0, Landroid/content/Intent;
    const-string v1, "android.intent.action.VIEW"
    invoke-direct {v0, v1, p1}, Landroid/content/Intent;-><init>(Ljava/lang/String;Landroid/net/Uri;)V
    invoke-virtual {v0, p2}, Landroid/content/Intent;->setPackage(Ljava/lang/String;)Landroid/content/Intent;
    # Bundle b = new Bundle(); b.putBinder(EXTRA_SESSION, session); v0.putExtras(b)
    new-instance v1, Landroid/os/Bundle;
    invoke-direct {v1}, Landroid/os/Bundle;-><init>()V
    const-string v2, "android.support.customtabs.extra.SESSION"
    invoke-virtual {v1, v2, p3}, Landroid/os/Bundle;->putBinder(Ljava/lang/String;Landroid/os/IBinder;)V
    invoke-virtual {v0, v1}, Landroid/content/Intent;->putExtras(Landroid/os/Bundle;)Landroid/content/Intent;
    # v1 = resources.getColor(resources.getIdentifier("theme_color", "color", packageName)), by
    # name, so this code holds no aapt-assigned resource number
    invoke-virtual {p0}, Landroid/content/Context;->getResources()Landroid/content/res/Resources;
    move-result-object v3
    const-string v1, "theme_color"
    const-string v2, "color"
    invoke-virtual {p0}, Landroid/content/Context;->getPackageName()Ljava/lang/String;
    move-result-object v4
    invoke-virtual {v3, v1, v2, v4}, Landroid/content/res/Resources;->getIdentifier(Ljava/lang/String;Ljava/lang/String;Ljava/lang/String;)I
    move-result v1
    invoke-virtual {v3, v1}, Landroid/content/res/Resources;->getColor(I)I
    move-result v1
    # v0.putExtra(EXTRA_TOOLBAR_COLOR, v1)
    const-string v2, "android.support.customtabs.extra.TOOLBAR_COLOR"
    invoke-virtual {v0, v2, v1}, Landroid/content/Intent;->putExtra(Ljava/lang/String;I)Landroid/content/Intent;
    return-object v0
.end method
