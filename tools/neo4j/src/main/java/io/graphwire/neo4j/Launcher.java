package io.graphwire.neo4j;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.dbms.api.DatabaseManagementServiceBuilder;
import org.neo4j.graphdb.QueryExecutionException;
import org.neo4j.logging.log4j.Log4jLogProvider;

/**
 * Runs an embedded Neo4j Community DBMS with Bolt, HTTP and Neo4j Browser on loopback.
 *
 * <p>Embedded mode starts with Bolt, HTTP and auth off, so every connector is set explicitly in a generated
 * neo4j.conf. The password is read from a file (never from the command line, where `ps` would show it).
 */
public final class Launcher {
  private Launcher() {}

  public static void main(String[] args) {
    try {
      run(args);
    } catch (Throwable e) {
      // Without this the DBMS's non-daemon threads keep a failed launcher alive and it never answers.
      e.printStackTrace();
      System.exit(1);
    }
  }

  private static void run(String[] args) throws Exception {
    Map<String, String> opts = parse(args);
    Path home = Path.of(required(opts, "--home")).toAbsolutePath();
    Path data = Path.of(opts.getOrDefault("--data", home.resolve("data").toString())).toAbsolutePath();
    String bolt = opts.getOrDefault("--bolt", "127.0.0.1:7687");
    String http = opts.getOrDefault("--http", "127.0.0.1:7474");
    String pagecache = opts.getOrDefault("--pagecache", "512m");
    String passwordFile = opts.get("--password-file");

    Path conf = writeConfig(home, data, bolt, http, pagecache, passwordFile != null);
    DatabaseManagementService dbms =
        new DatabaseManagementServiceBuilder(home)
            .loadPropertiesFromFile(conf)
            .setUserLogProvider(new Log4jLogProvider(System.out))
            .build();
    Runtime.getRuntime().addShutdownHook(new Thread(dbms::shutdown, "neo4j-shutdown"));
    if (passwordFile != null) {
      setPassword(dbms, Files.readString(Path.of(passwordFile)).strip());
    }
    System.out.println("READY bolt://" + bolt + " http://" + http);
    System.out.flush();
    new CountDownLatch(1).await();
  }

  /** Sets the neo4j user's password on every start; setting the password it already has is refused, and fine. */
  private static void setPassword(DatabaseManagementService dbms, String password) {
    try {
      dbms.database("system")
          .executeTransactionally(
              "ALTER USER neo4j SET PASSWORD $pw CHANGE NOT REQUIRED", Map.of("pw", password));
    } catch (QueryExecutionException e) {
      if (e.getMessage() == null || !e.getMessage().contains("Old password and new password cannot be the same")) {
        throw e;
      }
    }
  }

  private static Path writeConfig(
      Path home, Path data, String bolt, String http, String pagecache, boolean auth)
      throws IOException {
    for (String dir : List.of("conf", "plugins", "import", "logs")) {
      Files.createDirectories(home.resolve(dir));
    }
    Files.createDirectories(data);
    boolean httpOn = !"off".equals(http);
    String body =
        String.join(
            "\n",
            "server.default_listen_address=127.0.0.1",
            "server.bolt.enabled=true",
            "server.bolt.listen_address=" + bolt,
            // Advertised = listened: Neo4j Browser reads the Bolt address from the HTTP discovery document.
            "server.bolt.advertised_address=" + bolt,
            "server.bolt.tls_level=DISABLED",
            "server.http.enabled=" + httpOn,
            httpOn ? "server.http.listen_address=" + http : "",
            httpOn ? "server.http.advertised_address=" + http : "",
            "server.https.enabled=false",
            "server.directories.data=" + data,
            "server.directories.plugins=" + home.resolve("plugins"),
            "server.directories.import=" + home.resolve("import"),
            "server.directories.logs=" + home.resolve("logs"),
            "server.memory.pagecache.size=" + pagecache,
            "dbms.memory.transaction.total.max=1g",
            "dbms.security.auth_enabled=" + auth,
            "dbms.security.allow_csv_import_from_file_urls=false",
            "dbms.usage_report.enabled=false",
            // Plan each statement once, not once per size class of its list parameters: with size hints on, a
            // question naming one entity where the last named two waited 0.5-1.8 s for a new plan (docs/scaling.md).
            "internal.cypher.use_parameter_size=false",
            "");
    Path conf = home.resolve("conf").resolve("neo4j.conf");
    Files.writeString(conf, body);
    return conf;
  }

  private static Map<String, String> parse(String[] args) {
    Map<String, String> out = new HashMap<>();
    for (int i = 0; i + 1 < args.length; i += 2) {
      if (!args[i].startsWith("--")) {
        throw new IllegalArgumentException("expected --option value pairs, got " + args[i]);
      }
      out.put(args[i], args[i + 1]);
    }
    return out;
  }

  private static String required(Map<String, String> opts, String key) {
    String value = opts.get(key);
    if (value == null) {
      throw new IllegalArgumentException("missing " + key);
    }
    return value;
  }
}
