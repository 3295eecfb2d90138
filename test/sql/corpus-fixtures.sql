-- Tables for the documentation-corpus harness (corpus-compile.test.ts), one statement a line.
-- Where they come from:
--   QuestDB's demo dataset: trades, market_data, fx_trades, core_price, trips (NYC taxi rides).
--   Tables a page creates or describes (columns from the statements that use them):
--     TICKER_PRICE (deduplication page), my_geo_data and pos (geohash pages), vehicle_events,
--     meter, page_views, machine_status, daily_returns (cookbook recipes), trades_old,
--     trades_nodts, unordered_table, trades_archive, trades_2023/2024 (designated-timestamp
--     page), trades_unordered (aggregate functions, CREATE TABLE AS), confirmed_trades and
--     unconfirmed_trades (INSERT), trades_summary (JSON functions), book, temp_spreads and
--     instruments (UPDATE; instruments also the JOIN and materialized-view pages), metadata,
--     sensitive_sales, nyse_trades, nasdaq_trades (views), diagnostics (TSBS IoT data),
--     logs, system_logs, hft_data, sensor_data, attendance, standup_notes, reports,
--     maintenance, global_trades (interval / TICK syntax pages), unordered_trades (SAMPLE BY),
--     and the function reference's example tables: dbl (round*), full_names (strpos),
--     files and binary_files (sha*), sessions (approx_count_distinct), weather_data (arg_min),
--     records (bit_xor), quarterly_data and investments (geomean), rides (haversine_dist_deg),
--     locations (make_geohash), dataset (mode), sales_data and stock_returns (regr_*),
--     price_histogram and trade_histogram (weighted_stddev_freq).
--     md (ASOF JOIN hints: orders against market data), market_subset and
--     trades_ordered_by_ingestion (ASOF JOIN page), ManyTrades, Lookup, mayTrades, JuneTrades and
--     miniTrades (JOIN page), recent_trades (PIVOT), opcua_metrics (OPC-UA guide), cpu and mem
--     (Telegraf guide), redpanda_connect_demo (Redpanda Connect guide), telemetry (QuestDB's own
--     telemetry table), taxi_ride (ALTER COLUMN CACHE), mytable (CREATE TABLE AS; the date
--     functions' myTable), source_table (geohash casts), sales (approx_count_distinct),
--     example_table (split-a-string recipe).
--   The others (transactions, users, items, orders, measurements, ratings, names, ...) hold
--   the columns the reference pages' examples use with them.
CREATE TABLE trades (symbol SYMBOL, sym SYMBOL, counterparty SYMBOL, side SYMBOL, price DOUBLE, amount DOUBLE, timestamp TIMESTAMP, ts TIMESTAMP, quantity DOUBLE, volume DOUBLE, value DOUBLE, trader_id LONG, exchange SYMBOL, id LONG, instrument SYMBOL, order_id LONG, client_id SYMBOL, trade_details VARCHAR) TIMESTAMP(timestamp) PARTITION BY DAY WAL;
CREATE TABLE market_data (timestamp TIMESTAMP, symbol SYMBOL, bids DOUBLE[][], asks DOUBLE[][], price DOUBLE, mid_price DOUBLE, best_bid DOUBLE, best_ask DOUBLE, ts TIMESTAMP, bid DOUBLE, ask DOUBLE, state SYMBOL) TIMESTAMP(timestamp) PARTITION BY HOUR WAL;
CREATE TABLE fx_trades (timestamp TIMESTAMP, symbol SYMBOL, ecn SYMBOL, trade_id UUID, side SYMBOL, passive BOOLEAN, price DOUBLE, quantity DOUBLE, counterparty SYMBOL, order_id UUID) TIMESTAMP(timestamp) PARTITION BY HOUR WAL;
CREATE TABLE core_price (timestamp TIMESTAMP, symbol SYMBOL, ecn SYMBOL, bid_price DOUBLE, bid_volume LONG, ask_price DOUBLE, ask_volume LONG, reason SYMBOL, indicator1 DOUBLE, indicator2 DOUBLE) TIMESTAMP(timestamp) PARTITION BY HOUR WAL;
CREATE TABLE transactions (timestamp TIMESTAMP, id LONG, account_id LONG, user_id LONG, amount DOUBLE, currency SYMBOL, status SYMBOL, type SYMBOL, category SYMBOL, merchant SYMBOL, country SYMBOL, ts TIMESTAMP, payment_type SYMBOL, side SYMBOL, counterparty SYMBOL, item SYMBOL, store_id SYMBOL, transaction_id LONG, price DOUBLE, quantity DOUBLE) TIMESTAMP(timestamp) PARTITION BY DAY WAL;
CREATE TABLE users (id LONG, name VARCHAR, email VARCHAR, age INT, country SYMBOL, created_at TIMESTAMP, active BOOLEAN, user_id LONG, role SYMBOL, permissions INT, isActive BOOLEAN);
CREATE TABLE measurements (timestamp TIMESTAMP, device_id SYMBOL, sensor_id SYMBOL, location SYMBOL, temperature DOUBLE, humidity DOUBLE, pressure DOUBLE, value DOUBLE, ts TIMESTAMP, x DOUBLE, y DOUBLE) TIMESTAMP(timestamp) PARTITION BY DAY WAL;
CREATE TABLE scores (name VARCHAR, score DOUBLE, subject SYMBOL, student SYMBOL, class SYMBOL, ts TIMESTAMP);
CREATE TABLE ratings (movie SYMBOL, user_id LONG, rating DOUBLE, genre SYMBOL, ts TIMESTAMP, movieId LONG, userId LONG, score DOUBLE);
CREATE TABLE sensors (timestamp TIMESTAMP, sensor_id SYMBOL, temperature DOUBLE, humidity DOUBLE, location SYMBOL) TIMESTAMP(timestamp) PARTITION BY DAY WAL;
CREATE TABLE readings (timestamp TIMESTAMP, sensor_id SYMBOL, value DOUBLE, temperature DOUBLE) TIMESTAMP(timestamp) PARTITION BY DAY WAL;
CREATE TABLE orders (timestamp TIMESTAMP, symbol SYMBOL, side SYMBOL, order_type SYMBOL, price DOUBLE, quantity DOUBLE, order_id LONG, status SYMBOL, exchange_ts TIMESTAMP, gateway_ts TIMESTAMP, ack_ts TIMESTAMP, id VARCHAR, is_fulfilled BOOLEAN, has_error BOOLEAN, ts TIMESTAMP) TIMESTAMP(timestamp) PARTITION BY DAY WAL;
CREATE TABLE data (timestamp TIMESTAMP, ts TIMESTAMP, a DOUBLE, b DOUBLE, value DOUBLE, status SYMBOL, x DOUBLE, y DOUBLE, name SYMBOL, checksum LONG) TIMESTAMP(timestamp) PARTITION BY DAY WAL;
CREATE TABLE names (name VARCHAR, id LONG, firstName VARCHAR, lastName VARCHAR);
CREATE TABLE spreads (timestamp TIMESTAMP, symbol SYMBOL, spread DOUBLE, bid DOUBLE, ask DOUBLE, ts TIMESTAMP) TIMESTAMP(timestamp) PARTITION BY DAY WAL;
CREATE TABLE items (id LONG, name VARCHAR, price DOUBLE, category SYMBOL, batch_id SYMBOL, passed_qa BOOLEAN, failed_qa BOOLEAN, status_flags INT);
CREATE TABLE metrics (timestamp TIMESTAMP, ts TIMESTAMP, name SYMBOL, region SYMBOL, value DOUBLE) TIMESTAMP(ts) PARTITION BY DAY WAL;
CREATE TABLE sensor_1 (timestamp TIMESTAMP, value DOUBLE, ID LONG) TIMESTAMP(timestamp);
CREATE TABLE sensor_2 (timestamp TIMESTAMP, value DOUBLE, ID LONG) TIMESTAMP(timestamp);
CREATE TABLE sensor_3 (timestamp TIMESTAMP, value DOUBLE, ID LONG) TIMESTAMP(timestamp);
CREATE TABLE sensor_4 (timestamp TIMESTAMP, value DOUBLE, ID LONG) TIMESTAMP(timestamp);
CREATE TABLE t (symbol SYMBOL, price DOUBLE, volume DOUBLE, ts TIMESTAMP, x LONG, k TIMESTAMP) TIMESTAMP(ts) PARTITION BY DAY;
CREATE TABLE x (k TIMESTAMP, a LONG, b DOUBLE) TIMESTAMP(k) PARTITION BY DAY;
CREATE TABLE prices (sym SYMBOL, price DOUBLE, bid DOUBLE, ts TIMESTAMP, symbol SYMBOL, ask DOUBLE, timestamp TIMESTAMP, ticker SYMBOL, exchange SYMBOL, amount DECIMAL(18, 2)) TIMESTAMP(ts) PARTITION BY DAY WAL;
CREATE TABLE bids (sym SYMBOL, bid DOUBLE, ts TIMESTAMP) TIMESTAMP(ts) PARTITION BY DAY WAL;
CREATE TABLE asks (sym SYMBOL, ask DOUBLE, ts TIMESTAMP) TIMESTAMP(ts) PARTITION BY DAY WAL;
CREATE TABLE trips (pickup_datetime TIMESTAMP, dropoff_datetime TIMESTAMP, pickup_latitude DOUBLE, pickup_longitude DOUBLE, dropoff_latitude DOUBLE, dropoff_longitude DOUBLE, passenger_count INT, trip_distance DOUBLE, fare_amount DOUBLE, total_amount DOUBLE) TIMESTAMP(pickup_datetime) PARTITION BY MONTH WAL;
CREATE TABLE instruments (ID LONG, symbol SYMBOL, description VARCHAR, type SYMBOL, exchange SYMBOL, sector SYMBOL);
CREATE TABLE metadata (symbol SYMBOL, company_name VARCHAR);
CREATE TABLE TICKER_PRICE (ts TIMESTAMP, ticker SYMBOL, price DOUBLE) TIMESTAMP(ts) PARTITION BY DAY WAL DEDUP UPSERT KEYS(ts, ticker);
CREATE TABLE trades_old (ts TIMESTAMP, symbol SYMBOL, price DOUBLE);
CREATE TABLE trades_nodts (ts TIMESTAMP, symbol SYMBOL, price DOUBLE);
CREATE TABLE unordered_table (ts TIMESTAMP);
CREATE TABLE unordered_trades (ts TIMESTAMP, price DOUBLE);
CREATE TABLE trades_unordered (timestamp TIMESTAMP, ts TIMESTAMP, symbol SYMBOL, side SYMBOL, price DOUBLE, amount DOUBLE);
CREATE TABLE trades_archive (ts TIMESTAMP, symbol SYMBOL, price DOUBLE) TIMESTAMP(ts) PARTITION BY DAY WAL;
CREATE TABLE trades_2023 (ts TIMESTAMP, symbol SYMBOL, price DOUBLE) TIMESTAMP(ts) PARTITION BY DAY WAL;
CREATE TABLE trades_2024 (ts TIMESTAMP, symbol SYMBOL, price DOUBLE) TIMESTAMP(ts) PARTITION BY DAY WAL;
CREATE TABLE nyse_trades (ts TIMESTAMP, symbol SYMBOL, price DOUBLE) TIMESTAMP(ts) PARTITION BY DAY WAL;
CREATE TABLE nasdaq_trades (ts TIMESTAMP, symbol SYMBOL, price DOUBLE) TIMESTAMP(ts) PARTITION BY DAY WAL;
CREATE TABLE global_trades (ts TIMESTAMP) TIMESTAMP(ts) PARTITION BY DAY WAL;
CREATE TABLE confirmed_trades (timestamp TIMESTAMP, instrument SYMBOL, quantity DOUBLE, price DOUBLE, side SYMBOL) TIMESTAMP(timestamp) PARTITION BY DAY WAL;
CREATE TABLE unconfirmed_trades (timestamp TIMESTAMP, instrument SYMBOL, quantity DOUBLE, price DOUBLE, side SYMBOL, trade_id VARCHAR) TIMESTAMP(timestamp) PARTITION BY DAY WAL;
CREATE TABLE trades_summary (quantity LONG, price DOUBLE, timestamp TIMESTAMP) TIMESTAMP(timestamp) PARTITION BY DAY WAL;
CREATE TABLE temp_spreads (timestamp TIMESTAMP, ts TIMESTAMP, symbol SYMBOL, spread DOUBLE) TIMESTAMP(timestamp) PARTITION BY DAY WAL;
CREATE TABLE book (symbol SYMBOL, bid DOUBLE, ask DOUBLE, mid DOUBLE);
CREATE TABLE sensitive_sales (date DATE, region SYMBOL, sales DOUBLE);
CREATE TABLE daily_returns (date DATE, symbol SYMBOL, return DOUBLE);
CREATE TABLE meter (timestamp TIMESTAMP, operationId SYMBOL, wh DOUBLE) TIMESTAMP(timestamp) PARTITION BY DAY WAL;
CREATE TABLE vehicle_events (vehicle_id SYMBOL, lock_status BOOLEAN, timestamp TIMESTAMP) TIMESTAMP(timestamp) PARTITION BY DAY;
CREATE TABLE page_views (timestamp TIMESTAMP, user_id SYMBOL) TIMESTAMP(timestamp) PARTITION BY DAY WAL;
CREATE TABLE machine_status (timestamp TIMESTAMP, machine_id SYMBOL, status SYMBOL) TIMESTAMP(timestamp) PARTITION BY DAY WAL;
CREATE TABLE diagnostics (timestamp TIMESTAMP, name SYMBOL, fleet SYMBOL, driver SYMBOL, model SYMBOL, device_version SYMBOL, load_capacity DOUBLE, fuel_capacity DOUBLE, nominal_fuel_consumption DOUBLE, fuel_state DOUBLE, current_load DOUBLE, status LONG) TIMESTAMP(timestamp) PARTITION BY DAY WAL;
CREATE TABLE my_geo_data (g1c GEOHASH(1c), g8c GEOHASH(8c));
CREATE TABLE pos (ts TIMESTAMP, uuid SYMBOL, g8c GEOHASH(8c)) TIMESTAMP(ts) PARTITION BY DAY WAL;
CREATE TABLE rides (k TIMESTAMP, car_id SYMBOL, lat DOUBLE, lon DOUBLE) TIMESTAMP(k) PARTITION BY DAY WAL;
CREATE TABLE locations (location_name VARCHAR, lat DOUBLE, lon DOUBLE);
CREATE TABLE logs (ts TIMESTAMP) TIMESTAMP(ts) PARTITION BY DAY WAL;
CREATE TABLE system_logs (ts TIMESTAMP) TIMESTAMP(ts) PARTITION BY DAY WAL;
CREATE TABLE hft_data (ts TIMESTAMP) TIMESTAMP(ts) PARTITION BY HOUR WAL;
CREATE TABLE sensor_data (timestamp TIMESTAMP, ts TIMESTAMP, sensor_id SYMBOL, pressure DOUBLE) TIMESTAMP(ts) PARTITION BY DAY WAL;
CREATE TABLE attendance (ts TIMESTAMP) TIMESTAMP(ts) PARTITION BY DAY WAL;
CREATE TABLE standup_notes (ts TIMESTAMP) TIMESTAMP(ts) PARTITION BY DAY WAL;
CREATE TABLE reports (ts TIMESTAMP) TIMESTAMP(ts) PARTITION BY DAY WAL;
CREATE TABLE maintenance (ts TIMESTAMP) TIMESTAMP(ts) PARTITION BY DAY WAL;
CREATE TABLE dbl (d DOUBLE);
CREATE TABLE full_names (name VARCHAR);
CREATE TABLE files (filename VARCHAR, content VARCHAR, expected_hash VARCHAR);
CREATE TABLE binary_files (file_id LONG, binary_content BINARY);
CREATE TABLE sessions (date DATE, user_id LONG);
CREATE TABLE weather_data (sensor_id SYMBOL, temperature DOUBLE);
CREATE TABLE records (partition_id LONG, value LONG);
CREATE TABLE quarterly_data (growth_rate DOUBLE);
CREATE TABLE investments (return_factor DOUBLE);
CREATE TABLE dataset (symbol SYMBOL, value DOUBLE);
CREATE TABLE sales_data (category SYMBOL, sales DOUBLE, advertising_spend DOUBLE);
CREATE TABLE stock_returns (stock_return DOUBLE, market_return DOUBLE);
CREATE TABLE price_histogram (price_bucket DOUBLE, trade_count LONG);
CREATE TABLE trade_histogram (symbol SYMBOL, price_bucket DOUBLE, trade_count LONG);
CREATE TABLE md (timestamp TIMESTAMP, symbol SYMBOL, bid DOUBLE, ask DOUBLE) TIMESTAMP(timestamp) PARTITION BY HOUR WAL;
CREATE TABLE market_subset (timestamp TIMESTAMP, symbol SYMBOL, price DOUBLE) TIMESTAMP(timestamp) PARTITION BY DAY WAL;
CREATE TABLE trades_ordered_by_ingestion (timestamp TIMESTAMP, symbol SYMBOL, side SYMBOL, price DOUBLE, amount DOUBLE) TIMESTAMP(timestamp) PARTITION BY DAY WAL;
CREATE TABLE ManyTrades (timestamp TIMESTAMP, symbol SYMBOL, side SYMBOL, price DOUBLE, amount DOUBLE) TIMESTAMP(timestamp) PARTITION BY DAY WAL;
CREATE TABLE Lookup (symbol SYMBOL, description VARCHAR);
CREATE TABLE mayTrades (timestamp TIMESTAMP, symbol SYMBOL, side SYMBOL, price DOUBLE, amount DOUBLE) TIMESTAMP(timestamp) PARTITION BY DAY WAL;
CREATE TABLE JuneTrades (timestamp TIMESTAMP, symbol SYMBOL, side SYMBOL, price DOUBLE, amount DOUBLE) TIMESTAMP(timestamp) PARTITION BY DAY WAL;
CREATE TABLE miniTrades (timestamp TIMESTAMP, symbol SYMBOL, side SYMBOL, price DOUBLE, amount DOUBLE) TIMESTAMP(timestamp) PARTITION BY DAY WAL;
CREATE TABLE recent_trades (timestamp TIMESTAMP, symbol SYMBOL, side SYMBOL, price DOUBLE, amount DOUBLE) TIMESTAMP(timestamp) PARTITION BY DAY WAL;
CREATE TABLE opcua_metrics (timestamp TIMESTAMP, node_id SYMBOL, value DOUBLE) TIMESTAMP(timestamp) PARTITION BY DAY WAL;
CREATE TABLE cpu (timestamp TIMESTAMP, host SYMBOL, usage_user DOUBLE, usage_system DOUBLE, usage_idle DOUBLE) TIMESTAMP(timestamp) PARTITION BY DAY WAL;
CREATE TABLE mem (timestamp TIMESTAMP, host SYMBOL, used_percent DOUBLE, available LONG) TIMESTAMP(timestamp) PARTITION BY DAY WAL;
CREATE TABLE redpanda_connect_demo (timestamp TIMESTAMP, symbol SYMBOL, price DOUBLE) TIMESTAMP(timestamp) PARTITION BY DAY WAL;
CREATE TABLE telemetry (created TIMESTAMP, event SHORT, origin SHORT) TIMESTAMP(created);
CREATE TABLE taxi_ride (pickup_time TIMESTAMP, passenger_count SYMBOL, fare DOUBLE) TIMESTAMP(pickup_time) PARTITION BY DAY;
CREATE TABLE mytable (ts TIMESTAMP, column_value LONG) TIMESTAMP(ts) PARTITION BY DAY WAL;
CREATE TABLE source_table (x LONG);
CREATE TABLE sales (region SYMBOL, product_id LONG, amount DOUBLE);
CREATE TABLE example_table (col VARCHAR);
